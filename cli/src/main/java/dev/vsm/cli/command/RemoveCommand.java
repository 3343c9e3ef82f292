package dev.vsm.cli.command;

import dev.vsm.config.ConfigEdit;
import dev.vsm.config.EditResult;
import dev.vsm.spi.VolumeId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code vsm remove <storage>}: remove a storage from the configuration; its data stays (pvesm remove). */
@Command(name = "remove", description = "Remove a storage from the configuration. Its data is not touched.")
public final class RemoveCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "STORAGE")
    String storage;

    @Override
    void execute() {
        VolumeId.checkStorageId(storage);
        EditResult r = session().editConfig(new ConfigEdit.Remove(storage));
        SetCommand.report(out(), output, r, storage, dryRun());
    }
}
