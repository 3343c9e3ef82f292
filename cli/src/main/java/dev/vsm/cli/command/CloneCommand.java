package dev.vsm.cli.command;

import dev.vsm.cli.support.Args;
import dev.vsm.spi.VolumeId;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm clone <base-volume> <vmid>}: a linked clone of a base volume for another guest; with
 * {@code --snapshot}, of a volume's snapshot (storages that can: lvmthin).
 */
@Command(name = "clone", description = "Make a linked clone of a base volume (or of a volume's snapshot) for VMID.")
public final class CloneCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "BASE-VOLUME")
    String volume;

    @Parameters(index = "1", paramLabel = "VMID")
    String vmid;

    @Option(
            names = "--snapshot",
            paramLabel = "NAME",
            description = "clone this snapshot of the volume instead of a base volume")
    String snapshot;

    @Override
    void execute() {
        VolumeId base = VolumeId.parse(volume);
        int owner = Args.vmid(vmid);
        VolumeId clone = session().manager().cloneVolume(base, owner, snapshot);
        output.print(
                out(),
                Map.of("volid", clone.toString()),
                o -> o.println((dryRun() ? "would create linked clone '" : "successfully created linked clone '")
                        + clone + "'"));
    }
}
