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
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Unmatched;

/** {@code vsm set <storage> --<property> <value> ... [--delete a,b] [--digest sha1]}: change a storage (pvesm set). */
@Command(
        name = "set",
        description = "Change a storage's properties. Each is given as --<name> <value>.",
        footer = {"", "Booleans: 1|0|yes|no|on|off|true|false (a bare --flag means 1); lists: comma-separated."})
public final class SetCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "STORAGE")
    String storage;

    @Option(
            names = "--delete",
            split = ",",
            paramLabel = "PROPERTY",
            description = "properties to remove (comma-separated)")
    List<String> delete = new ArrayList<>();

    @Option(
            names = "--digest",
            paramLabel = "SHA1",
            description =
                    "refuse the change if the configuration file's SHA-1 is no longer this (see 'vsm status --output-format json')")
    String digest;

    @Unmatched
    List<String> properties = new ArrayList<>();

    @Override
    void execute() {
        VolumeId.checkStorageId(storage);
        StorageConfig current = session().config().require(storage);
        PluginSchema schema = session().registry().require(current.type()).schema();
        Map<String, String> values = PropertyArgs.parse(properties, schema, current.type());
        EditResult r = session().editConfig(new ConfigEdit.Update(storage, values, delete, digest));
        report(out(), output, r, storage, dryRun());
    }

    /**
     * What add, set and remove print: nothing in text (as pvesm) but, under {@code --dry-run}, each
     * property that changes ({@code + <storage>: <property> <old> -> <new>}, {@code (unset)} for
     * none) and then the file writes; the result in JSON/YAML.
     */
    static void report(PrintStream out, OutputOptions output, EditResult r, String storage, boolean dryRun) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("storage", storage);
        m.put("changed", !r.changes().isEmpty());
        m.put("written", r.written());
        m.put("digest", r.after().digest());
        Map<String, List<Object>> diff = diff(r, storage);
        if (dryRun) {
            m.put("properties", diff);
            m.put("dry-run", r.changes());
        }
        output.print(out, m, o -> {
            if (dryRun) {
                diff.forEach((key, change) -> o.println(
                        "+ " + storage + ": " + key + " " + shown(change.get(0)) + " -> " + shown(change.get(1))));
                r.changes().forEach(o::println);
            }
        });
    }

    /** Each property of {@code storage} that the edit changes (the type too, for add and remove): old and new value. */
    private static Map<String, List<Object>> diff(EditResult r, String storage) {
        Map<String, Object> before = properties(r.before().storage(storage).orElse(null));
        Map<String, Object> after = properties(r.after().storage(storage).orElse(null));
        Map<String, List<Object>> diff = new TreeMap<>();
        java.util.Set<String> keys = new java.util.TreeSet<>(before.keySet());
        keys.addAll(after.keySet());
        for (String key : keys) {
            Object old = before.get(key);
            Object now = after.get(key);
            if (!java.util.Objects.equals(old, now)) {
                diff.put(key, java.util.Arrays.asList(old, now));
            }
        }
        return diff;
    }

    private static Map<String, Object> properties(StorageConfig cfg) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (cfg != null) {
            m.put("type", cfg.type());
            m.putAll(cfg.properties());
        }
        return m;
    }

    private static String shown(Object value) {
        if (value == null) {
            return "(unset)";
        }
        String text = value instanceof List<?> list
                ? String.join(",", list.stream().map(String::valueOf).toList())
                : String.valueOf(value);
        return VolumeId.printable(text);
    }
}
