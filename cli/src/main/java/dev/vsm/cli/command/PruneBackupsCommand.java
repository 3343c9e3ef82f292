package dev.vsm.cli.command;

import dev.vsm.backup.PruneEntry;
import dev.vsm.cli.support.Args;
import dev.vsm.config.PruneOptions;
import dev.vsm.engine.Backups;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.io.PrintStream;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm prune-backups <storage>}: removes the backups the retention options do not keep
 * (pvesm prune-backups). Without {@code --keep-*} options the storage's {@code prune-backups}
 * property applies. {@code --dry-run} lists each backup with its mark (keep, remove, protected,
 * renamed) and removes nothing.
 */
@Command(
        name = "prune-backups",
        description = "Prune backups: remove those the retention options do not keep "
                + "(with --dry-run: show what would be kept and removed).")
public final class PruneBackupsCommand extends VsmCommand {
    @Parameters(index = "0", paramLabel = "STORAGE")
    String storage;

    /** pve's {@code --dry-run}: list the marks, remove nothing (the storage is activated as for a real run). */
    @Option(names = "--dry-run", description = "only show what would be pruned, remove nothing")
    boolean preview;

    @Option(
            names = "--keep-all",
            paramLabel = "BOOL",
            description = "keep all backups (conflicts with the other options when true)")
    String keepAll;

    @Option(names = "--keep-last", paramLabel = "N", description = "keep the last N backups")
    String keepLast;

    @Option(
            names = "--keep-hourly",
            paramLabel = "N",
            description = "keep the newest backup of each of the last N hours with one")
    String keepHourly;

    @Option(
            names = "--keep-daily",
            paramLabel = "N",
            description = "keep the newest backup of each of the last N days with one")
    String keepDaily;

    @Option(
            names = "--keep-weekly",
            paramLabel = "N",
            description = "keep the newest backup of each of the last N weeks with one")
    String keepWeekly;

    @Option(
            names = "--keep-monthly",
            paramLabel = "N",
            description = "keep the newest backup of each of the last N months with one")
    String keepMonthly;

    @Option(
            names = "--keep-yearly",
            paramLabel = "N",
            description = "keep the newest backup of each of the last N years with one")
    String keepYearly;

    @Option(names = "--type", paramLabel = "TYPE", description = "only backups of guests of this type: qemu or lxc")
    String type;

    @Option(names = "--vmid", paramLabel = "VMID", description = "only this guest's backups")
    String vmid;

    @Override
    boolean changes() {
        return !preview;
    }

    @Override
    void execute() {
        VolumeId.checkStorageId(storage);
        if (type != null && !type.equals("qemu") && !type.equals("lxc")) {
            throw StorageException.badInput(
                    "type: value '%s' does not have a value in the enumeration 'qemu, lxc'", VolumeId.printable(type));
        }
        Integer owner = vmid == null ? null : Args.vmid(vmid);
        Map<String, Long> keep = keep();
        List<PruneEntry> entries =
                new Backups(session().manager(), ZoneId.systemDefault()).prune(storage, keep, owner, type, preview);
        if (!preview) {
            output.print(out(), Map.of("dryrun", false, "list", List.of()), o -> {});
            return;
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("dryrun", true);
        json.put("list", entries.stream().map(PruneEntry::toMap).toList());
        output.print(out(), json, o -> printText(o, entries));
    }

    /** The {@code --keep-*} options as one property string checked as pve checks it, or null when none is given. */
    private Map<String, Long> keep() {
        Map<String, String> given = new LinkedHashMap<>();
        put(given, PruneOptions.KEEP_ALL, keepAll);
        String[] counts = {keepLast, keepHourly, keepDaily, keepWeekly, keepMonthly, keepYearly};
        for (int i = 0; i < counts.length; i++) {
            put(given, PruneOptions.COUNTS.get(i), counts[i]);
        }
        if (given.isEmpty()) {
            return null;
        }
        try {
            return PruneOptions.parse(PruneOptions.print(given));
        } catch (StorageException e) {
            throw StorageException.badInput("prune-backups: %s", e.getMessage());
        }
    }

    private static void put(Map<String, String> given, String key, String value) {
        if (value == null) {
            return;
        }
        if (value.contains(",") || value.contains("=")) {
            throw StorageException.badInput("%s: type check failed - got '%s'", key, VolumeId.printable(value));
        }
        given.put(key, value);
    }

    /** pvesm's table: sorted by owner (none first) and time; columns {@code Backup}, {@code Backup-ID}, {@code Prune-Mark}. */
    static void printText(PrintStream o, List<PruneEntry> entries) {
        if (entries.isEmpty()) {
            o.println("No backups found");
            return;
        }
        o.println("NOTE: this is only a preview and might not be what a subsequent");
        o.println("prune call does if backups are removed/added in the meantime.");
        o.println();
        List<PruneEntry> sorted = new ArrayList<>(entries);
        sorted.sort(Comparator.comparing(PruneEntry::vmid, Comparator.nullsFirst(Comparator.naturalOrder()))
                .thenComparing(PruneEntry::ctime, Comparator.nullsFirst(Comparator.naturalOrder())));
        int width = sorted.stream().mapToInt(e -> e.volid().length()).max().orElse(0) + 1;
        String row = "%-" + width + "s %15s %10s%n";
        o.printf(row, "Backup", "Backup-ID", "Prune-Mark");
        for (PruneEntry e : sorted) {
            o.printf(row, e.volid(), e.vmid() == null ? e.type() : e.type() + "/" + e.vmid(), e.mark());
        }
    }
}
