package dev.vsm.cli.command;

import dev.vsm.spi.VolumeId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm activate <volume> [--snapshot S]}: pve's {@code activate_volume}, which pvesm's users
 * know from {@code pvesm path} and guest starts: what a VM manager runs before it opens a volume's
 * path. On LVM the LV is activated exclusively ({@code lvchange -aey}), a qcow2 volume with its
 * whole chain; on a file storage the file is checked to exist.
 */
@Command(
        name = "activate",
        description = "Activate a volume, or one of its snapshots, before opening its path"
                + " (LVM: exclusively on this node, a qcow2 volume with its whole chain).")
public final class ActivateCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Option(names = "--snapshot", paramLabel = "SNAPSHOT", description = "activate this snapshot of the volume")
    String snapshot;

    @Override
    void execute() {
        VolumeId volid = VolumeId.parse(volume);
        session().manager().activateVolume(volid, snapshot);
        output.print(
                out(),
                DeactivateCommand.json(volid, snapshot, session().manager().path(volid, snapshot), dryRun()),
                o -> o.println((dryRun() ? "would activate '" : "activated '") + DeactivateCommand.what(volid, snapshot)
                        + "'"));
    }
}
