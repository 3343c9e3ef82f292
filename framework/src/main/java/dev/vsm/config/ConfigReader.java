package dev.vsm.config;

import static java.util.Objects.requireNonNull;

import dev.vsm.config.StorageConfigs.Origin;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.StorageConfig;
import dev.vsm.trust.FileTrust;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Reads a configuration: the file's bytes (at most {@value #MAX_BYTES}), their digest, their
 * YAML ({@link ConfigParser}), each section checked against its type's schema
 * ({@link SectionValidator}) or kept as an {@link UnloadedSection}. Any problem fails the whole
 * read with every problem found, naming file and line: vsm never runs on half a configuration.
 */
final class ConfigReader {
    static final int MAX_BYTES = 1 << 20;
    private static final byte[] NO_BYTES = new byte[0];

    private final Function<String, Optional<PluginSchema>> schemas;

    ConfigReader(Function<String, Optional<PluginSchema>> schemas) {
        this.schemas = requireNonNull(schemas, "schemas");
    }

    /** The configuration at {@code location}; when its file does not exist, see {@link ConfigLocation}. */
    StorageConfigs read(ConfigLocation location) {
        Optional<byte[]> bytes = readFile(location.file());
        if (bytes.isPresent()) {
            return parse(location.file(), Origin.FILE, location.file().toString(), bytes.get(), bytes.get());
        }
        return missing(location);
    }

    /** What vsm runs on when the file at {@code location} does not exist (see {@link ConfigLocation}). */
    StorageConfigs missing(ConfigLocation location) {
        if (location.explicit()) {
            return new StorageConfigs(location.file(), Origin.NEW_FILE, NO_BYTES, ConfigContents.EMPTY, List.of());
        }
        // its directory comes from $XDG_DATA_HOME or $HOME, which sudo may leave at the user's
        FileTrust.requireTrustedAsRoot(
                location.defaultLocalDir(),
                "the built-in storage 'local' (" + location.defaultLocalDir() + ", from $XDG_DATA_HOME or $HOME)",
                "or run with root's HOME (sudo -H) or name a configuration file (--config)");
        byte[] defaults = BuiltInDefault.yaml(location.defaultLocalDir()).getBytes(StandardCharsets.UTF_8);
        return parse(location.file(), Origin.BUILT_IN_DEFAULT, BuiltInDefault.LABEL, defaults, NO_BYTES);
    }

    /**
     * Reads {@code bytes} as the configuration of {@code file}.
     *
     * @param label       how the source is named in messages
     * @param digestBytes what the digest is computed over (the file's bytes; none for the built-in default)
     */
    StorageConfigs parse(Path file, Origin origin, String label, byte[] bytes, byte[] digestBytes) {
        List<ConfigProblem> problems = new ArrayList<>();
        ConfigParser.Document doc = ConfigParser.parse(label, decode(label, bytes), problems);
        List<String> order = new ArrayList<>();
        Map<String, StorageConfig> storages = new LinkedHashMap<>();
        Map<String, UnloadedSection> unloaded = new LinkedHashMap<>();
        List<String> warnings = new ArrayList<>();
        for (ConfigParser.Section s : doc.sections()) {
            Optional<PluginSchema> schema = schemas.apply(s.type());
            if (schema.isEmpty()) {
                UnloadedSection section = new UnloadedSection(s.id(), s.type(), s.line(), s.node());
                unloaded.put(s.id(), section);
                order.add(s.id());
                warnings.add(section.warning(label));
                continue;
            }
            SectionValidator.validate(label, s.line(), s.id(), s.id(), s.type(), schema.get(), s.properties(), problems)
                    .ifPresent(config -> {
                        storages.put(s.id(), config);
                        order.add(s.id());
                    });
        }
        pluginDir(label, file, doc, problems);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        ConfigContents contents = new ConfigContents(doc.topLevelKeys(), doc.reserved(), order, storages, unloaded);
        return new StorageConfigs(file, origin, digestBytes, contents, warnings);
    }

    /**
     * The top-level {@code plugin-dir} of the file at {@code location}, a relative path taken
     * from the file's directory; empty when the file or the key is absent. Reads only the file's
     * shape, not its storages, so that it can run before the plugins that check those are loaded.
     *
     * @throws ConfigException when the file cannot be read as YAML, or the value is not a path
     */
    Optional<Path> pluginDir(ConfigLocation location) {
        return pluginDir(location.file(), location.file().toString(), readFile(location.file()));
    }

    /** {@link #pluginDir(ConfigLocation)} of {@code bytes}, a relative path taken from {@code file}'s directory. */
    Optional<Path> pluginDir(Path file, String label, Optional<byte[]> bytes) {
        return fromShape(
                label, bytes, ConfigParser.PLUGIN_DIR, (l, doc, problems) -> pluginDir(l, file, doc, problems));
    }

    /**
     * The {@code cluster} block of the file at {@code location}, empty when the file or the block
     * is absent. Like {@link #pluginDir(ConfigLocation)} it reads only the file's shape; a file
     * whose text does not mention {@code cluster} at all is not even parsed (start-up time).
     *
     * @throws ConfigException when the file is not YAML, a value of the block is bad, or the file
     *                         has both a block and {@code storages}
     */
    Optional<ClusterSettings> cluster(ConfigLocation location) {
        return cluster(location.file(), location.file().toString(), readFile(location.file()));
    }

    /** {@link #cluster(ConfigLocation)} of {@code bytes}, a relative {@code secret-file} taken from {@code file}'s directory. */
    Optional<ClusterSettings> cluster(Path file, String label, Optional<byte[]> bytes) {
        return fromShape(
                label, bytes, ConfigParser.CLUSTER, (l, doc, problems) -> ClusterBlock.read(file, l, doc, problems));
    }

    /** Reads one top-level entry from a file's parsed shape, adding what is wrong with it to {@code problems}. */
    @FunctionalInterface
    private interface ShapeEntry<T> {
        Optional<T> read(String label, ConfigParser.Document doc, List<ConfigProblem> problems);
    }

    /**
     * {@code entry} (top-level {@code key}) of a configuration's {@code bytes}, read from their
     * shape only (no plugin needed); empty when there are none (a file that is absent). Text that
     * does not even mention {@code key} is not parsed (start-up time: most files have neither key).
     *
     * @throws ConfigException when the text is not YAML or the entry's value is bad
     */
    private static <T> Optional<T> fromShape(String label, Optional<byte[]> bytes, String key, ShapeEntry<T> entry) {
        if (bytes.isEmpty() || !new String(bytes.get(), StandardCharsets.ISO_8859_1).contains(key)) {
            return Optional.empty();
        }
        List<ConfigProblem> problems = new ArrayList<>();
        ConfigParser.Document doc = ConfigParser.parse(label, decode(label, bytes.get()), problems);
        List<ConfigProblem> own = new ArrayList<>();
        Optional<T> value = entry.read(label, doc, own);
        if (!own.isEmpty()) {
            throw new ConfigException(own);
        }
        return value;
    }

    private static Optional<Path> pluginDir(
            String label, Path file, ConfigParser.Document doc, List<ConfigProblem> problems) {
        Node node = doc.reserved().get(ConfigParser.PLUGIN_DIR);
        if (node == null) {
            return Optional.empty();
        }
        if (node instanceof ScalarNode s
                && s.getTag().equals(Tag.STR)
                && !s.getValue().isBlank()
                && s.getValue().indexOf('\0') < 0) {
            Path base = file.toAbsolutePath().getParent();
            return Optional.of(base.resolve(s.getValue()).normalize());
        }
        problems.add(new ConfigProblem(
                label,
                ConfigParser.line(node),
                null,
                ConfigParser.PLUGIN_DIR,
                "must be the path of a directory of plugin jars"));
        return Optional.empty();
    }

    /** The file's bytes, or empty when it does not exist; as root, only a file no one else may change ({@link #requireTrusted}). */
    static Optional<byte[]> readFile(Path file) {
        String label = file.toString();
        try {
            if (FileTrust.callerIsRoot()) {
                requireTrusted(file);
            }
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            if (!attributes.isRegularFile()) {
                throw problem(label, "not a regular file");
            }
            try (InputStream in = Files.newInputStream(file)) {
                byte[] bytes = in.readNBytes(MAX_BYTES + 1);
                if (bytes.length > MAX_BYTES) {
                    throw problem(label, "the file is larger than 1 MiB - is it really a storage configuration?");
                }
                return Optional.of(bytes);
            }
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (AccessDeniedException e) {
            throw problem(label, "cannot read the file: permission denied");
        } catch (IOException e) {
            throw problem(label, "cannot read the file: " + e.getMessage());
        }
    }

    /**
     * As root, the configuration decides which code runs ({@code plugin-dir}) and where root
     * writes ({@code path}): the file, and every directory above it, must belong to root and no
     * one else may write them ({@link FileTrust}, sudo's rule for {@code sudoers}); a directory
     * above that others may write (a mode 0777 {@code /etc/vsm}) is as bad, since they could put
     * another file in its place. When the file does not exist yet, its directory is checked, as
     * root would make it there. Refused as bad input (one line, the fix), nothing read.
     */
    private static void requireTrusted(Path file) throws IOException {
        Optional<FileTrust.Problem> problem;
        if (Files.exists(file)) {
            problem = FileTrust.untrusted(file);
        } else if (file.toAbsolutePath().getParent() != null
                && Files.isDirectory(file.toAbsolutePath().getParent())) {
            problem = FileTrust.untrusted(file.toAbsolutePath().getParent());
        } else {
            return; // nothing there yet; the write makes the directories, root's
        }
        if (problem.isPresent()) {
            throw problem(file.toString(), "refused as root: " + problem.get().describe());
        }
    }

    private static String decode(String label, byte[] bytes) {
        try {
            String text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
            return text.startsWith("\uFEFF") ? text.substring(1) : text;
        } catch (CharacterCodingException e) {
            throw problem(label, "the file is not UTF-8 text");
        }
    }

    static String sha1(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-1", e);
        }
    }

    private static ConfigException problem(String label, String message) {
        return new ConfigException(new ConfigProblem(label, 0, null, null, message));
    }
}
