package dev.vsm.cli.command;

import dev.vsm.config.ConfigEdit;
import dev.vsm.config.EditResult;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.VolumeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Unmatched;

/** {@code vsm add <type> <storage> --<property> <value> ...}: add a storage to the configuration (pvesm add). */
@Command(name = "add", description = "Add a storage. Each property is given as --<name> <value> (see 'vsm add <type> --help').",
        footer = {"", "Booleans: 1|0|yes|no|on|off|true|false (a bare --flag means 1); lists: comma-separated.",
            "Properties per type are listed by 'vsm plugins --properties'."})
public final class AddCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "TYPE", description = "storage type (dir, ...)")
    String type;

    @Parameters(index = "1", paramLabel = "STORAGE", description = "the new storage's id")
    String storage;

    @Unmatched
    List<String> properties = new ArrayList<>();


    @Override
    void execute() {
        VolumeId.checkStorageId(storage);
        PluginSchema schema = session().registry().require(type).schema();
        Map<String, String> values = PropertyArgs.parse(properties, schema, type);
        EditResult r = session().configStore().apply(new ConfigEdit.Add(type, storage, values), session().hooks(), dryRun());
        SetCommand.report(out(), output, r, storage, dryRun());
    }
}
