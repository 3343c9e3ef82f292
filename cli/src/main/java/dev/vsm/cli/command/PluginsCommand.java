package dev.vsm.cli.command;

import dev.vsm.engine.PluginRegistry.Entry;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.StoragePlugin;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vsm plugins}: the storage types found, where from, and whether they loaded; with their properties on request. */
@Command(name = "plugins", description = "List the storage plugins found and whether they loaded.")
public final class PluginsCommand extends VsmCommand {
    @Option(names = "--properties", description = "list each loaded type's storage properties (for add and set)")
    boolean properties;

    @Override
    void execute() {
        if (properties) {
            printProperties();
            return;
        }
        List<Entry> entries = session().registry().entries();
        output.print(out(), entries.stream().map(PluginsCommand::json).toList(), o -> printTable(o, entries));
    }

    /** Columns as wide as their longest value; the status last, as a refusal's reason is long. */
    private static void printTable(PrintStream o, List<Entry> entries) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"Type", "API", "Class", "Source", "Status"});
        for (Entry e : entries) {
            rows.add(new String[] {
                dash(e.type()),
                dash(e.apiVersion()),
                dash(e.className()),
                e.source(),
                e.loaded() ? "loaded" : "refused: " + e.problem()
            });
        }
        int[] widths = new int[4];
        for (String[] row : rows) {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < widths.length; i++) {
                line.append(String.format("%-" + widths[i] + "s  ", row[i]));
            }
            o.println(line.append(row[4]));
        }
    }

    private static String dash(Object value) {
        return value == null ? "-" : value.toString();
    }

    private void printProperties() {
        List<Map<String, Object>> rows =
                propertyRows(session().registry().plugins().values());
        output.print(out(), rows, o -> printProperties(o, rows));
    }

    /** Each property of each plugin's schema, as {@code --properties} lists them. */
    static List<Map<String, Object>> propertyRows(java.util.Collection<StoragePlugin> plugins) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (StoragePlugin plugin : plugins) {
            for (PropertySpec p : plugin.schema().properties()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", plugin.type());
                m.put("property", p.name());
                m.put("value", p.type().name().toLowerCase(java.util.Locale.ROOT));
                m.put("required", p.required());
                m.put("fixed", p.fixed());
                m.put("default", p.defaultValue());
                m.put("allowed", p.allowed());
                m.put("description", p.description());
                rows.add(m);
            }
        }
        return rows;
    }

    /** The text form: a {@code <type>:} line, then one {@code --<property>} line each. */
    static void printProperties(PrintStream o, List<Map<String, Object>> rows) {
        String type = null;
        for (Map<String, Object> m : rows) {
            if (!m.get("type").equals(type)) {
                type = (String) m.get("type");
                o.println((rows.indexOf(m) == 0 ? "" : "\n") + type + ":");
            }
            String flags = (Boolean.TRUE.equals(m.get("required")) ? " required" : "")
                    + (Boolean.TRUE.equals(m.get("fixed")) ? " fixed" : "");
            List<?> allowed = (List<?>) m.get("allowed");
            String values = allowed.isEmpty()
                    ? (String) m.get("value")
                    : String.join("|", allowed.stream().map(Object::toString).toList());
            o.printf(
                    "  --%-24s %-32s %s%s%s%n",
                    m.get("property"),
                    values,
                    m.get("description"),
                    m.get("default") == null ? "" : " (default: " + m.get("default") + ")",
                    flags.isEmpty() ? "" : " [" + flags.strip() + "]");
        }
    }

    private static Map<String, Object> json(Entry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", e.type());
        m.put("class", e.className());
        m.put("source", e.source());
        m.put("api", e.apiVersion());
        m.put("status", e.loaded() ? "loaded" : "refused");
        m.put("reason", e.problem());
        return m;
    }
}
