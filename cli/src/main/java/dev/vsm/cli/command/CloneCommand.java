package dev.vsm.cli.command;

import dev.vsm.cli.Args;
import dev.vsm.spi.VolumeId;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code vsm clone <base-volume> <vmid>}: a linked clone of a base volume for another guest. */
@Command(name = "clone", description = "Make a linked clone of a base volume for VMID.")
public final class CloneCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "BASE-VOLUME")
    String volume;

    @Parameters(index = "1", paramLabel = "VMID")
    String vmid;


    @Override
    void execute() {
        VolumeId base = VolumeId.parse(volume);
        int owner = Args.vmid(vmid);
        VolumeId clone = session().manager().cloneVolume(base, owner);
        output.print(out(), Map.of("volid", clone.toString()), o ->
                o.println((dryRun() ? "would create linked clone '" : "successfully created linked clone '") + clone + "'"));
    }
}
