package dev.vsm.config;

import dev.vsm.config.RawValue.Kind;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.composer.Composer;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.parser.Parser;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Reads the YAML text of a configuration file into sections of raw properties, keeping every
 * key's line. YAML 1.2 core schema ({@code off} and {@code yes} are strings), composed to nodes
 * only (no Java objects are built from the file), with guards against hostile files: at most
 * {@value #MAX_COLLECTION_ALIASES} aliases of lists or mappings (alias bombs), no duplicate keys,
 * no keys that are not plain scalars, at most {@value #MAX_DEPTH} levels of nesting (the composer
 * recurses once per level), one document, and only the known top-level keys.
 *
 * <p>It checks the shape of the file (a {@code storages} mapping of mappings with a {@code type}),
 * not the properties: that is {@link SectionValidator}'s job, once the type's schema is known.
 */
final class ConfigParser {
    static final String STORAGES = "storages";
    /** The top-level key naming the directory of drop-in plugins (read by {@link ConfigReader#pluginDir}). */
    static final String PLUGIN_DIR = "plugin-dir";
    /** The top-level key of cluster mode's settings ({@link ClusterBlock}). */
    static final String CLUSTER = "cluster";
    /** Top-level keys besides {@code storages}, kept as written: the cluster settings, the plugin directory. */
    static final Set<String> RESERVED_TOP_LEVEL = Set.of(CLUSTER, PLUGIN_DIR);

    static final int MAX_COLLECTION_ALIASES = 10;
    static final int MAX_CODE_POINTS = 1 << 20;
    /** Far above any real configuration (storages, a section, a list value: four levels). */
    static final int MAX_DEPTH = 64;

    /**
     * The file's top level: its keys in order, the values of the reserved ones, and the storage sections.
     *
     * @param storagesLine the line of the {@code storages} key, 0 when there is none
     */
    record Document(List<String> topLevelKeys, Map<String, Node> reserved, List<Section> sections, int storagesLine) {
        Document {
            topLevelKeys = List.copyOf(topLevelKeys);
            reserved = Collections.unmodifiableMap(new LinkedHashMap<>(reserved));
            sections = List.copyOf(sections);
        }
    }

    /**
     * One entry under {@code storages}.
     *
     * @param node       the section's mapping as written (kept to write back sections of types not loaded)
     * @param properties every key but {@code type}, in file order
     */
    record Section(String id, int line, String type, MappingNode node, List<RawProperty> properties) {
        Section {
            properties = List.copyOf(properties);
        }
    }

    private final String file;
    private final List<ConfigProblem> problems;

    private ConfigParser(String file, List<ConfigProblem> problems) {
        this.file = file;
        this.problems = problems;
    }

    /**
     * Parses {@code text}, the content of {@code file}. Problems of a section or key are added to
     * {@code problems} and the section left out; the caller fails when the list is not empty.
     *
     * @throws ConfigException when the text cannot be read as a configuration at all (not YAML,
     *                         no mapping at the top), naming the problems found so far
     */
    static Document parse(String file, String text, List<ConfigProblem> problems) {
        return new ConfigParser(file, problems).document(text);
    }

    static LoadSettings loadSettings(String label) {
        return LoadSettings.builder()
                .setLabel(label)
                .setSchema(new CoreSchema())
                .setMaxAliasesForCollections(MAX_COLLECTION_ALIASES)
                .setAllowRecursiveKeys(false)
                .setAllowDuplicateKeys(false)
                .setAllowNonScalarKeys(
                        true) // as snakeyaml-engine 2 did: ConfigParser refuses them itself, naming the line
                .setCodePointLimit(MAX_CODE_POINTS)
                .setUseMarks(true)
                .build();
    }

    private Document document(String text) {
        Node root = compose(text);
        checkKeys(root);
        if (!problems.isEmpty()) {
            // duplicate or non-scalar keys: which value is meant is anybody's guess, read no further
            throw new ConfigException(problems);
        }
        if (!(root instanceof MappingNode top)) {
            throw problem(
                    line(root),
                    null,
                    "the top level must be a mapping with a 'storages:' key (got " + describe(root) + ")");
        }
        List<String> keys = new ArrayList<>();
        Map<String, Node> reserved = new LinkedHashMap<>();
        List<Section> sections = List.of();
        int storagesLine = 0;
        for (NodeTuple t : top.getValue()) {
            String key = scalarText(t.getKeyNode());
            keys.add(key);
            if (key.equals(STORAGES)) {
                storagesLine = line(t.getKeyNode());
                sections = sections(t.getValueNode());
            } else if (RESERVED_TOP_LEVEL.contains(key)) {
                reserved.put(key, t.getValueNode());
            } else {
                problems.add(new ConfigProblem(
                        file,
                        line(t.getKeyNode()),
                        null,
                        null,
                        "unexpected top-level key '" + VolumeId.printable(key) + "' (storages go under 'storages:')"));
            }
        }
        return new Document(keys, reserved, sections, storagesLine);
    }

    private Node compose(String text) {
        Optional<Node> root;
        try {
            LoadSettings settings = loadSettings(file);
            Parser parser = new DepthLimit(new ParserImpl(settings, new StreamReader(settings, text)));
            root = new Composer(settings, parser).getSingleNode();
        } catch (MarkedYamlEngineException e) {
            int line = e.getProblemMark().map(m -> m.getLine() + 1).orElse(0);
            String context = e.getContext() == null ? "" : " (" + e.getContext() + ")";
            throw problem(line, null, oneLine(e.getProblem() + context));
        } catch (YamlEngineException e) {
            String message = e.getMessage() != null && e.getMessage().startsWith("Number of aliases")
                    ? "too many aliases of lists or mappings (at most " + MAX_COLLECTION_ALIASES + ")"
                    : oneLine(String.valueOf(e.getMessage()));
            throw problem(0, null, message);
        }
        return root.orElseThrow(
                () -> problem(0, null, "the file holds no configuration (expected a 'storages:' mapping)"));
    }

    /** Refuses a list or mapping nested deeper than {@value #MAX_DEPTH} before the composer recurses into it. */
    private final class DepthLimit implements Parser {
        private final Parser parser;
        private int depth;

        DepthLimit(Parser parser) {
            this.parser = parser;
        }

        @Override
        public boolean checkEvent(Event.ID id) {
            return parser.checkEvent(id);
        }

        @Override
        public Event peekEvent() {
            return parser.peekEvent();
        }

        @Override
        public boolean hasNext() {
            return parser.hasNext();
        }

        @Override
        public Event next() {
            Event event = parser.next();
            switch (event.getEventId()) {
                case MappingStart, SequenceStart -> {
                    if (++depth > MAX_DEPTH) {
                        int line =
                                event.getStartMark().map(m -> m.getLine() + 1).orElse(0);
                        throw problem(line, null, "lists and mappings nested deeper than " + MAX_DEPTH + " levels");
                    }
                }
                case MappingEnd, SequenceEnd -> depth--;
                default -> {}
            }
            return event;
        }
    }

    /** Refuses duplicate keys and keys that are not plain scalars, in every mapping of the file. */
    private void checkKeys(Node root) {
        Set<Node> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Node> todo = new ArrayList<>(List.of(root));
        while (!todo.isEmpty()) {
            Node node = todo.remove(todo.size() - 1);
            if (!seen.add(node)) {
                continue;
            }
            if (node instanceof MappingNode m) {
                Map<String, Integer> lines = new HashMap<>();
                for (NodeTuple t : m.getValue()) {
                    if (!(t.getKeyNode() instanceof ScalarNode key)
                            || key.getTag().equals(Tag.NULL)) {
                        problems.add(new ConfigProblem(
                                file,
                                line(t.getKeyNode()),
                                null,
                                null,
                                "keys must be plain names (got " + describe(t.getKeyNode()) + ")"));
                    } else {
                        Integer first = lines.putIfAbsent(key.getValue(), line(key));
                        if (first != null) {
                            problems.add(new ConfigProblem(
                                    file,
                                    line(key),
                                    null,
                                    null,
                                    "duplicate key '" + VolumeId.printable(key.getValue()) + "' (first on line " + first
                                            + ")"));
                        }
                    }
                    todo.add(t.getKeyNode());
                    todo.add(t.getValueNode());
                }
            } else if (node instanceof SequenceNode s) {
                todo.addAll(s.getValue());
            }
        }
    }

    private List<Section> sections(Node storages) {
        if (isNull(storages)) {
            return List.of();
        }
        if (!(storages instanceof MappingNode m)) {
            problems.add(new ConfigProblem(
                    file,
                    line(storages),
                    null,
                    null,
                    "'storages' must be a mapping of storage ids to their properties (got " + describe(storages)
                            + ")"));
            return List.of();
        }
        List<Section> sections = new ArrayList<>();
        for (NodeTuple t : m.getValue()) {
            section(scalarText(t.getKeyNode()), line(t.getKeyNode()), t.getValueNode())
                    .ifPresent(sections::add);
        }
        return sections;
    }

    private Optional<Section> section(String id, int line, Node value) {
        try {
            VolumeId.checkStorageId(id);
        } catch (StorageException e) {
            problems.add(new ConfigProblem(file, line, null, null, e.getMessage()));
            return Optional.empty();
        }
        if (!(value instanceof MappingNode m)) {
            problems.add(new ConfigProblem(
                    file,
                    line,
                    id,
                    null,
                    "a storage must be a mapping of its properties (got " + describe(value) + ")"));
            return Optional.empty();
        }
        String type = null;
        List<RawProperty> properties = new ArrayList<>();
        for (NodeTuple t : m.getValue()) {
            String key = scalarText(t.getKeyNode());
            if (!key.equals(SectionValidator.TYPE)) {
                properties.add(new RawProperty(key, line(t.getKeyNode()), raw(t.getValueNode(), true)));
            } else if (t.getValueNode() instanceof ScalarNode s
                    && s.getTag().equals(Tag.STR)
                    && !s.getValue().isBlank()) {
                type = s.getValue();
            } else {
                problems.add(new ConfigProblem(
                        file,
                        line(t.getKeyNode()),
                        id,
                        SectionValidator.TYPE,
                        "the type must be a name such as 'dir' (got " + describe(t.getValueNode()) + ")"));
                return Optional.empty();
            }
        }
        if (type == null) {
            problems.add(new ConfigProblem(file, line, id, null, "missing value for required option 'type'"));
            return Optional.empty();
        }
        return Optional.of(new Section(id, line, type, m, properties));
    }

    /** The raw value of a node; lists are read one level deep (a property is never a list of lists). */
    private static RawValue raw(Node node, boolean descend) {
        if (node instanceof ScalarNode s) {
            Tag tag = s.getTag();
            Kind kind = tag.equals(Tag.STR)
                    ? Kind.STRING
                    : tag.equals(Tag.BOOL)
                            ? Kind.BOOLEAN
                            : tag.equals(Tag.INT)
                                    ? Kind.INTEGER
                                    : tag.equals(Tag.FLOAT)
                                            ? Kind.FLOAT
                                            : tag.equals(Tag.NULL) ? Kind.NULL : Kind.OTHER_TAG;
            return new RawValue.Scalar(s.getValue(), kind, kind == Kind.OTHER_TAG ? shortTag(tag) : null, line(s));
        }
        if (node instanceof SequenceNode seq) {
            List<RawValue> items = new ArrayList<>();
            if (descend) {
                for (Node item : seq.getValue()) {
                    items.add(raw(item, false));
                }
            }
            return new RawValue.Sequence(items, line(seq));
        }
        return new RawValue.Mapping(line(node));
    }

    private static String shortTag(Tag tag) {
        return tag.getValue().startsWith(Tag.PREFIX)
                ? "!!" + tag.getValue().substring(Tag.PREFIX.length())
                : tag.getValue();
    }

    /** A key's text; {@link #checkKeys} has made sure every key is a scalar. */
    private static String scalarText(Node key) {
        return ((ScalarNode) key).getValue();
    }

    static int line(Node node) {
        return node.getStartMark().map(m -> m.getLine() + 1).orElse(0);
    }

    private static boolean isNull(Node node) {
        return node instanceof ScalarNode s && s.getTag().equals(Tag.NULL);
    }

    private static String describe(Node node) {
        if (node instanceof MappingNode) {
            return "a mapping";
        }
        if (node instanceof SequenceNode) {
            return "a list";
        }
        return isNull(node) ? "no value" : "'" + VolumeId.printable(((ScalarNode) node).getValue()) + "'";
    }

    private static String oneLine(String text) {
        return VolumeId.printable(text.replace('\n', ' ').strip());
    }

    private ConfigException problem(int line, String storage, String message) {
        problems.add(new ConfigProblem(file, line, storage, null, message));
        return new ConfigException(problems);
    }
}
