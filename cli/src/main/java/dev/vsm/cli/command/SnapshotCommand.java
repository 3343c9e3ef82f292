package dev.vsm.cli.command;

import dev.vsm.spi.VolumeId;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code vsm snapshot <volume> <name>}: a snapshot of a volume (storages that have them: lvmthin, and qcow2 images on dir). */
@Command(name = "snapshot", description = "Make a snapshot of a volume.")
public final class SnapshotCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Parameters(index = "1", paramLabel = "SNAPSHOT", description = "a letter, then letters, digits, '_' or '-'")
    String snapshot;

    @Override
    void execute() {
        VolumeId volid = VolumeId.parse(volume);
        session().manager().snapshot(volid, snapshot);
        output.print(
                out(),
                json(volid, snapshot, dryRun()),
                o -> o.println((dryRun() ? "would create snapshot '" : "successfully created snapshot '") + snapshot
                        + "' of '" + volid + "'"));
    }

    /** What the snapshot commands print in JSON. */
    static Map<String, Object> json(VolumeId volid, String snapshot, boolean dryRun) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("volid", volid.toString());
        m.put("snapshot", snapshot);
        m.put("dry-run", dryRun);
        return m;
    }
}
