package dev.vsm.cli.command;

import dev.vsm.spi.VolumeId;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm rename-snapshot <volume> <snapshot> <new name>}: pve's {@code rename_snapshot}, on
 * storages whose snapshots are layers of their own (dir and lvm with {@code snapshot-as-volume-chain}).
 */
@Command(
        name = "rename-snapshot",
        description = "Rename a volume's snapshot (dir and lvm with snapshot-as-volume-chain; other storages refuse).")
public final class RenameSnapshotCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Parameters(index = "1", paramLabel = "SNAPSHOT")
    String snapshot;

    @Parameters(index = "2", paramLabel = "NEWNAME", description = "a letter, then letters, digits, '_' or '-'")
    String target;

    @Override
    void execute() {
        VolumeId volid = VolumeId.parse(volume);
        session().manager().renameSnapshot(volid, snapshot, target);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("volid", volid.toString());
        m.put("snapshot", snapshot);
        m.put("target", target);
        m.put("dry-run", dryRun());
        output.print(
                out(),
                m,
                o -> o.println((dryRun() ? "would rename snapshot '" : "renamed snapshot '") + snapshot + "' of '"
                        + volid + "' to '" + target + "'"));
    }
}
