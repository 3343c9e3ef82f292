package dev.vsm.cli.command;

import dev.vsm.engine.PluginRegistry.Entry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code vsm plugins}: the storage types found, where from, and whether they loaded. */
@Command(name = "plugins", description = "List the storage plugins found and whether they loaded.")
public final class PluginsCommand extends VsmCommand {
    @Override
    void execute() {
        List<Entry> entries = session().registry().entries();
        output.print(out(), entries.stream().map(PluginsCommand::json).toList(), o -> {
            o.printf("%-10s %-45s %-10s %-4s %s%n", "Type", "Class", "Source", "API", "Status");
            for (Entry e : entries) {
                o.printf("%-10s %-45s %-10s %-4s %s%n", e.type() == null ? "-" : e.type(),
                        e.className() == null ? "-" : e.className(), e.source(),
                        e.apiVersion() == null ? "-" : e.apiVersion(), e.loaded() ? "loaded" : "refused: " + e.problem());
            }
        });
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
