package dev.vsm.cli.command;

import dev.vsm.lvm.LogicalVolume;
import dev.vsm.lvm.Lvm;
import dev.vsm.lvm.LvmNames;
import dev.vsm.spi.StorageException;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm scan lvmthin <vg>}: the thin pools of a volume group, one name per line (pvesm scan
 * lvmthin), sorted by name; in JSON with their sizes and use in bytes, as pve's API gives them.
 */
@Command(name = "lvmthin", description = "List the thin pools of an LVM volume group (one per line).")
public final class ScanLvmThinCommand extends VsmCommand {
    @Parameters(index = "0", paramLabel = "VG", description = "the volume group")
    String vg;

    @Override
    void execute() {
        LvmNames.check(vg);
        var context = session().context();
        Lvm lvm = new Lvm(context.commands(), context.console());
        if (lvm.vgs().group(vg).isEmpty()) {
            throw StorageException.badInput("no such volume group '%s'", vg);
        }
        List<LogicalVolume> pools = lvm.lvs(vg).thinPools(vg).stream().sorted(Comparator.comparing(LogicalVolume::name)).toList();
        output.print(out(), pools.stream().map(ScanLvmThinCommand::json).toList(), o -> pools.forEach(p -> o.println(p.name())));
    }

    private static Map<String, Object> json(LogicalVolume pool) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("lv", pool.name());
        m.put("vg", pool.vg());
        m.put("lv_size", pool.size());
        m.put("used", pool.used());
        m.put("metadata_size", pool.metadataSize());
        m.put("metadata_used", pool.metadataUsed());
        return m;
    }
}
