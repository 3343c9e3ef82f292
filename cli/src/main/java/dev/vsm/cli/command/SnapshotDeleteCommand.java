package dev.vsm.cli.command;

import dev.vsm.spi.VolumeId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code vsm snapshot-delete <volume> <name>}: delete a volume's snapshot. */
@Command(name = "snapshot-delete", description = "Delete a snapshot of a volume.")
public final class SnapshotDeleteCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Parameters(index = "1", paramLabel = "SNAPSHOT")
    String snapshot;

    @Override
    void execute() {
        VolumeId volid = VolumeId.parse(volume);
        session().manager().snapshotDelete(volid, snapshot);
        output.print(
                out(),
                SnapshotCommand.json(volid, snapshot, dryRun()),
                o -> o.println((dryRun() ? "would remove snapshot '" : "Removed snapshot '") + snapshot + "' of '"
                        + volid + "'"));
    }
}
