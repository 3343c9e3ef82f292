package dev.vsm.config;

import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.StorageConfig;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.snakeyaml.engine.v2.api.Dump;
import org.snakeyaml.engine.v2.api.DumpSettings;
import org.snakeyaml.engine.v2.api.StreamDataWriter;
import org.snakeyaml.engine.v2.common.FlowStyle;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Writes a configuration as YAML: block style, storages in file order (new ones were appended),
 * in each storage {@code type} first, then the required keys, then the others, each group
 * sorted; lists as flow sequences {@code [a, b]}, booleans {@code true}/{@code false}, strings
 * quoted where a YAML 1.1 or 1.2 reader would take them for something else. Sections of types
 * that are not loaded, and the reserved top-level entries, are written back as they were read
 * (their content; comments are not kept).
 */
final class ConfigWriter {
    static final String HEADER = "# vsm storage configuration (YAML 1.2), see 'vsm help'.\n"
            + "# vsm rewrites this file when a command changes the configuration; comments are not kept.\n";

    private ConfigWriter() {}

    static String render(ConfigContents contents, Function<String, Optional<PluginSchema>> schemas) {
        List<NodeTuple> top = new ArrayList<>();
        List<String> keys = new ArrayList<>(contents.topLevelKeys());
        if (!keys.contains(ConfigParser.STORAGES)) {
            keys.add(0, ConfigParser.STORAGES);
        }
        for (String key : keys) {
            Node value = key.equals(ConfigParser.STORAGES)
                    ? storages(contents, schemas)
                    : contents.reserved().get(key);
            if (value != null) {
                top.add(new NodeTuple(string(key), value));
            }
        }
        return HEADER + dump(new MappingNode(Tag.MAP, top, FlowStyle.BLOCK));
    }

    /**
     * One string as a YAML scalar, quoted as {@link #render} would quote it. An absolute path of
     * letters, digits and {@code /._+-} is a plain scalar that resolves to a string, and is
     * returned as it is: the built-in default's one path would otherwise start snakeyaml's
     * emitter (its settings, representers and emitter states) on every command.
     */
    static String scalar(String text) {
        return isPlainPath(text) ? text : dumped(text);
    }

    static String dumped(String text) {
        return dump(string(text)).strip();
    }

    private static boolean isPlainPath(String text) {
        if (text.length() < 2 || text.charAt(0) != '/') {
            return false;
        }
        for (int i = 1; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean plain = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '/'
                    || c == '.'
                    || c == '_'
                    || c == '+'
                    || c == '-';
            if (!plain) {
                return false;
            }
        }
        return true;
    }

    private static Node storages(ConfigContents contents, Function<String, Optional<PluginSchema>> schemas) {
        List<NodeTuple> sections = new ArrayList<>();
        for (String id : contents.order()) {
            StorageConfig config = contents.storages().get(id);
            Node section = config != null
                    ? section(config, schemas.apply(config.type()))
                    : contents.unloaded().get(id).node();
            sections.add(new NodeTuple(string(id), section));
        }
        return new MappingNode(Tag.MAP, sections, FlowStyle.BLOCK);
    }

    private static Node section(StorageConfig config, Optional<PluginSchema> schema) {
        Set<String> required = schema.map(s -> s.properties().stream()
                        .filter(PropertySpec::required)
                        .map(PropertySpec::name)
                        .collect(Collectors.toSet()))
                .orElse(Set.of());
        List<Map.Entry<String, Object>> entries =
                new ArrayList<>(config.properties().entrySet());
        entries.sort(Comparator.<Map.Entry<String, Object>, Boolean>comparing(e -> !required.contains(e.getKey()))
                .thenComparing(Map.Entry::getKey));
        List<NodeTuple> tuples = new ArrayList<>();
        tuples.add(new NodeTuple(string(SectionValidator.TYPE), string(config.type())));
        for (Map.Entry<String, Object> e : entries) {
            tuples.add(new NodeTuple(string(e.getKey()), value(e.getValue())));
        }
        return new MappingNode(Tag.MAP, tuples, FlowStyle.BLOCK);
    }

    private static Node value(Object value) {
        if (value instanceof Boolean || value instanceof Long || value instanceof Integer) {
            return new ScalarNode(value instanceof Boolean ? Tag.BOOL : Tag.INT, value.toString(), ScalarStyle.PLAIN);
        }
        if (value instanceof Double d) {
            return new ScalarNode(Tag.FLOAT, d.toString(), ScalarStyle.PLAIN);
        }
        if (value instanceof List<?> list) {
            List<Node> items =
                    list.stream().<Node>map(o -> string(o.toString())).toList();
            return new SequenceNode(Tag.SEQ, items, FlowStyle.FLOW);
        }
        return string(value.toString());
    }

    private static ScalarNode string(String text) {
        return new ScalarNode(
                Tag.STR, text, LegacyYamlQuoting.needsQuotes(text) ? ScalarStyle.SINGLE_QUOTED : ScalarStyle.PLAIN);
    }

    private static String dump(Node node) {
        DumpSettings settings = DumpSettings.builder()
                .setSchema(new CoreSchema())
                .setIndent(2)
                .setWidth(Integer.MAX_VALUE)
                .setSplitLines(false)
                .build();
        Output out = new Output();
        new Dump(settings).dumpNode(node, out);
        return out.toString();
    }

    /** snakeyaml-engine's writer interface over a {@link StringWriter}. */
    private static final class Output extends StringWriter implements StreamDataWriter {}
}
