package dev.vsm.cli.command;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm rollback-check <volume> <snapshot>}: pve's {@code volume_rollback_is_possible}. Prints
 * whether {@code vsm rollback} would go back to the snapshot and, if not, the snapshots that block
 * it (newest first); exits 0 when it would, 1 when it is blocked (pve's refusal on stderr), 2 for a
 * snapshot that does not exist.
 */
@Command(
        name = "rollback-check",
        description = "Tell whether a volume can be rolled back to a snapshot, and which snapshots block it"
                + " (exit 0: it can, 1: blocked).")
public final class RollbackCheckCommand extends VsmCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Parameters(index = "1", paramLabel = "SNAPSHOT")
    String snapshot;

    @Override
    void execute() {
        VolumeId volid = VolumeId.parse(volume);
        List<String> blockers = session().manager().rollbackBlockers(volid, snapshot);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("volid", volid.toString());
        m.put("snapshot", snapshot);
        m.put("possible", blockers.isEmpty());
        m.put("blockers", blockers);
        output.print(
                out(),
                m,
                o -> o.println(
                        blockers.isEmpty()
                                ? "rollback of '" + volid + "' to snapshot '" + snapshot + "' is possible"
                                : "blocked by: " + String.join(" ", blockers)));
        if (!blockers.isEmpty()) {
            throw StorageException.failed(
                    "can't rollback, '%s' is not most recent snapshot on '%s'", snapshot, volid.volname());
        }
    }
}
