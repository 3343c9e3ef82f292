package dev.vsm.cli.command;

import dev.vsm.spi.VolumeId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code vsm rollback <volume> <name>}: put a volume back to one of its snapshots; what it held since is lost. */
@Command(name = "rollback", description = "Roll a volume back to one of its snapshots (its data since is lost).")
public final class RollbackCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Parameters(index = "1", paramLabel = "SNAPSHOT")
    String snapshot;

    @Override
    void execute() {
        VolumeId volid = VolumeId.parse(volume);
        session().manager().rollback(volid, snapshot);
        output.print(
                out(),
                SnapshotCommand.json(volid, snapshot, dryRun()),
                o -> o.println((dryRun() ? "would roll back '" : "rolled back '") + volid + "' to snapshot '" + snapshot
                        + "'"));
    }
}
