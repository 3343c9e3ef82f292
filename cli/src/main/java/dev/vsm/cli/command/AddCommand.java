package dev.vsm.cli.command;

import dev.vsm.cli.support.Session;
import dev.vsm.config.ConfigEdit;
import dev.vsm.config.EditResult;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.spi.VolumeId;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Unmatched;

/** {@code vsm add <type> <storage> --<property> <value> ...}: add a storage to the configuration (pvesm add). */
@Command(
        name = "add",
        description = "Add a storage. Each property is given as --<name> <value> (see 'vsm add <type> --help').",
        footer = {
            "",
            "Booleans: 1|0|yes|no|on|off|true|false (a bare --flag means 1); lists: comma-separated.",
            "Properties per type are listed by 'vsm plugins --properties'."
        })
public final class AddCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "TYPE", description = "storage type (dir, ...)")
    String type;

    @Parameters(index = "1", paramLabel = "STORAGE", description = "the new storage's id")
    String storage;

    @Unmatched
    List<String> properties = new ArrayList<>();

    /**
     * {@code vsm add <type> --help}: the usage, then the properties of that type (its plugin's
     * schema), as the command's description promises.
     */
    public static void showTypeProperties(CommandLine add) {
        String key = "typeProperties";
        add.getHelpSectionMap().put(key, help -> {
            AddCommand command = add.getCommand();
            if (command.type == null) {
                return "";
            }
            java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
            PrintStream o = new PrintStream(text, true, StandardCharsets.UTF_8);
            Optional<StoragePlugin> plugin =
                    new Session(command.vsm(), false).registry().plugin(command.type);
            if (plugin.isEmpty()) {
                o.printf("%nNo storage type '%s' is loaded (see 'vsm plugins').%n", VolumeId.printable(command.type));
            } else {
                o.println();
                o.print("Properties of ");
                PluginsCommand.printProperties(o, PluginsCommand.propertyRows(List.of(plugin.get())));
            }
            return text.toString(StandardCharsets.UTF_8);
        });
        List<String> keys = new ArrayList<>(add.getHelpSectionKeys());
        keys.add(keys.indexOf(CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER_HEADING), key);
        add.setHelpSectionKeys(keys);
    }

    @Override
    void execute() {
        VolumeId.checkStorageId(storage);
        PluginSchema schema = session().registry().require(type).schema();
        Map<String, String> values = PropertyArgs.parse(properties, schema, type);
        EditResult r = session().editConfig(new ConfigEdit.Add(type, storage, values));
        SetCommand.report(out(), output, r, storage, dryRun());
    }
}
