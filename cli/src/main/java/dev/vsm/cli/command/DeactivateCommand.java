package dev.vsm.cli.command;

import dev.vsm.spi.VolumeId;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm deactivate <volume> [--snapshot S]}: pve's {@code deactivate_volume}, after a guest
 * stopped or migrated away. LVM: {@code lvchange -aln} (a qcow2 volume's whole chain); LVM-thin
 * keeps volumes other than bases active, as pve, and deactivates snapshots; file storages do nothing.
 */
@Command(
        name = "deactivate",
        description = "Deactivate a volume, or one of its snapshots (LVM: lvchange -aln; lvmthin keeps"
                + " volumes other than bases active, as pve).")
public final class DeactivateCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Option(names = "--snapshot", paramLabel = "SNAPSHOT", description = "deactivate this snapshot of the volume")
    String snapshot;

    @Override
    void execute() {
        VolumeId volid = VolumeId.parse(volume);
        session().manager().deactivateVolume(volid, snapshot);
        output.print(
                out(),
                json(volid, snapshot, session().manager().path(volid, snapshot), dryRun()),
                o -> o.println((dryRun() ? "would deactivate '" : "deactivated '") + what(volid, snapshot) + "'"));
    }

    static String what(VolumeId volid, String snapshot) {
        return snapshot == null ? volid.toString() : volid + "' snapshot '" + snapshot;
    }

    static Map<String, Object> json(VolumeId volid, String snapshot, Path path, boolean dryRun) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("volid", volid.toString());
        m.put("snapshot", snapshot);
        m.put("path", path == null ? null : path.toString());
        m.put("dry-run", dryRun);
        return m;
    }
}
