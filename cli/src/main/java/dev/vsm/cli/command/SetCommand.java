package dev.vsm.cli.command;

import dev.vsm.cli.support.OutputOptions;
import dev.vsm.config.ConfigEdit;
import dev.vsm.config.EditResult;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.VolumeId;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Unmatched;

/** {@code vsm set <storage> --<property> <value> ... [--delete a,b] [--digest sha1]}: change a storage (pvesm set). */
@Command(name = "set", description = "Change a storage's properties. Each is given as --<name> <value>.",
        footer = {"", "Booleans: 1|0|yes|no|on|off|true|false (a bare --flag means 1); lists: comma-separated."})
public final class SetCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "STORAGE")
    String storage;

    @Option(names = "--delete", split = ",", paramLabel = "PROPERTY", description = "properties to remove (comma-separated)")
    List<String> delete = new ArrayList<>();

    @Option(names = "--digest", paramLabel = "SHA1",
            description = "refuse the change if the configuration file's SHA-1 is no longer this (see 'vsm status --output-format json')")
    String digest;

    @Unmatched
    List<String> properties = new ArrayList<>();


    @Override
    void execute() {
        VolumeId.checkStorageId(storage);
        StorageConfig current = session().config().require(storage);
        PluginSchema schema = session().registry().require(current.type()).schema();
        Map<String, String> values = PropertyArgs.parse(properties, schema, current.type());
        EditResult r = session().configStore().apply(new ConfigEdit.Update(storage, values, delete, digest),
                session().hooks(), dryRun());
        report(out(), output, r, storage, dryRun());
    }

    /** What add, set and remove print: nothing in text (as pvesm) but the dry-run lines; the result in JSON/YAML. */
    static void report(PrintStream out, OutputOptions output, EditResult r, String storage, boolean dryRun) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("storage", storage);
        m.put("changed", !r.changes().isEmpty());
        m.put("written", r.written());
        m.put("digest", r.after().digest());
        if (dryRun) {
            m.put("dry-run", r.changes());
        }
        output.print(out, m, o -> {
            if (dryRun) {
                r.changes().forEach(o::println);
            }
        });
    }
}
