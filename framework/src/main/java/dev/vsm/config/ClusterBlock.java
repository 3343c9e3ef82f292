package dev.vsm.config;

import dev.vsm.spi.CommonProperties;
import dev.vsm.spi.VolumeId;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Reads the {@code cluster:} block of a local configuration file into {@link ClusterSettings};
 * each bad value is a problem {@code <file>:<line>: cluster: <key>: <message>}. In cluster mode
 * the storages live in ZooKeeper, so a local {@code storages:} key is refused too.
 */
final class ClusterBlock {
    static final String ZOOKEEPER = "zookeeper";
    static final String NODE = "node";
    static final String ROOT = "root";
    static final String SESSION_TIMEOUT = "session-timeout";
    static final String SECRET_FILE = "secret-file";
    static final int MIN_TIMEOUT = 2;
    static final int MAX_TIMEOUT = 600;

    private static final Pattern HOST_PORT =
            Pattern.compile("(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\\[[0-9A-Fa-f:.]+]):([0-9]{1,5})");
    private static final Pattern NODE_NAME = Pattern.compile(CommonProperties.NODE_NAME_PATTERN);
    private static final Pattern ZNODE_PATH = Pattern.compile("(/[A-Za-z0-9_.-]+)+");

    private ClusterBlock() {}

    /**
     * The settings of {@code doc}'s {@code cluster} block, empty when it has none or when a value
     * is bad (the problems are added to {@code problems}). A relative {@code secret-file} is taken
     * from {@code path}'s directory, as {@code plugin-dir} is.
     */
    static Optional<ClusterSettings> read(
            Path path, String file, ConfigParser.Document doc, List<ConfigProblem> problems) {
        Node block = doc.reserved().get(ConfigParser.CLUSTER);
        if (block == null) {
            return Optional.empty();
        }
        int before = problems.size();
        if (doc.storagesLine() > 0) {
            problems.add(
                    new ConfigProblem(
                            file,
                            doc.storagesLine(),
                            null,
                            ConfigParser.STORAGES,
                            "not used in cluster mode: the storage configuration is in ZooKeeper (seed it with 'vsm cluster init --from FILE')"));
        }
        if (!(block instanceof MappingNode m)) {
            problems.add(problem(
                    file, block, null, "must be a mapping of zookeeper, node, root, session-timeout and secret-file"));
            return Optional.empty();
        }
        Map<String, Node> values = new HashMap<>();
        for (NodeTuple t : m.getValue()) {
            String key = ((ScalarNode) t.getKeyNode()).getValue();
            if (List.of(ZOOKEEPER, NODE, ROOT, SESSION_TIMEOUT, SECRET_FILE).contains(key)) {
                values.put(key, t.getValueNode());
            } else {
                problems.add(
                        problem(
                                file,
                                t.getKeyNode(),
                                VolumeId.printable(key),
                                "unknown key (the cluster block takes zookeeper, node, root, session-timeout and secret-file)"));
            }
        }
        String zookeeper = zookeeper(file, block, values.get(ZOOKEEPER), problems);
        String node = required(
                file,
                block,
                NODE,
                values.get(NODE),
                problems,
                NODE_NAME,
                "must be a node name: letters, digits and '-', starting and ending with a letter or digit");
        String root = values.containsKey(ROOT) ? root(file, values.get(ROOT), problems) : ClusterSettings.DEFAULT_ROOT;
        Duration timeout = values.containsKey(SESSION_TIMEOUT)
                ? timeout(file, values.get(SESSION_TIMEOUT), problems)
                : ClusterSettings.DEFAULT_SESSION_TIMEOUT;
        Path dir = path.toAbsolutePath().getParent();
        Path secret = values.containsKey(SECRET_FILE)
                ? secretFile(file, dir, values.get(SECRET_FILE), problems)
                : dir.resolve(ClusterSettings.DEFAULT_SECRET_FILE);
        if (problems.size() > before) {
            return Optional.empty();
        }
        return Optional.of(new ClusterSettings(zookeeper, node, root, timeout, secret));
    }

    private static Path secretFile(String file, Path dir, Node value, List<ConfigProblem> problems) {
        String text = string(value);
        if (text != null && !text.isBlank() && !text.endsWith("/") && text.indexOf('\0') < 0) {
            try {
                return dir.resolve(text);
            } catch (InvalidPathException e) {
                // reported below
            }
        }
        problems.add(problem(
                file,
                value,
                SECRET_FILE,
                "must be the path of a file (absolute, or relative to this file's directory) (got " + describe(value)
                        + ")"));
        return null;
    }

    private static String zookeeper(String file, Node block, Node value, List<ConfigProblem> problems) {
        String text = required(file, block, ZOOKEEPER, value, problems, null, null);
        if (text == null) {
            return null;
        }
        for (String server : text.split(",", -1)) {
            var m = HOST_PORT.matcher(server.strip());
            if (!m.matches() || Integer.parseInt(m.group(1)) < 1 || Integer.parseInt(m.group(1)) > 65535) {
                problems.add(problem(
                        file,
                        value,
                        ZOOKEEPER,
                        "must be the ZooKeeper servers as host:port[,host:port...] (got '" + VolumeId.printable(text)
                                + "')"));
                return null;
            }
        }
        return text.replace(" ", "");
    }

    private static String root(String file, Node value, List<ConfigProblem> problems) {
        String text = string(value);
        if (text == null
                || !ZNODE_PATH.matcher(text).matches()
                || List.of(text.split("/")).stream().anyMatch(s -> s.equals(".") || s.equals(".."))
                || text.equals("/zookeeper")
                || text.startsWith("/zookeeper/")) {
            problems.add(problem(
                    file,
                    value,
                    ROOT,
                    "must be an absolute znode path such as /vsm, without a trailing '/' (got " + describe(value)
                            + ")"));
            return null;
        }
        return text;
    }

    private static Duration timeout(String file, Node value, List<ConfigProblem> problems) {
        if (value instanceof ScalarNode s
                && (s.getTag().equals(Tag.INT)
                        || s.getTag().equals(Tag.STR) && s.getValue().matches("[0-9]{1,4}"))) {
            try {
                long seconds = Long.parseLong(s.getValue());
                if (seconds >= MIN_TIMEOUT && seconds <= MAX_TIMEOUT) {
                    return Duration.ofSeconds(seconds);
                }
            } catch (NumberFormatException e) {
                // out of range, reported below
            }
        }
        problems.add(problem(
                file,
                value,
                SESSION_TIMEOUT,
                "must be a whole number of seconds from " + MIN_TIMEOUT + " to " + MAX_TIMEOUT + " (got "
                        + describe(value) + ")"));
        return null;
    }

    /** A required string value, checked against {@code pattern} when there is one; null (and a problem) when bad. */
    private static String required(
            String file,
            Node block,
            String key,
            Node value,
            List<ConfigProblem> problems,
            Pattern pattern,
            String patternMessage) {
        if (value == null) {
            problems.add(problem(file, block, key, "missing value for required option '" + key + "'"));
            return null;
        }
        String text = string(value);
        if (text == null || text.isBlank()) {
            problems.add(problem(file, value, key, "must be a string (got " + describe(value) + ")"));
            return null;
        }
        if (pattern != null && !pattern.matcher(text).matches()) {
            problems.add(problem(file, value, key, patternMessage + " (got '" + VolumeId.printable(text) + "')"));
            return null;
        }
        return text;
    }

    private static String string(Node value) {
        return value instanceof ScalarNode s
                        && (s.getTag().equals(Tag.STR) || s.getTag().equals(Tag.INT))
                ? s.getValue()
                : null;
    }

    private static String describe(Node value) {
        if (value instanceof ScalarNode s) {
            return s.getTag().equals(Tag.NULL) ? "no value" : "'" + VolumeId.printable(s.getValue()) + "'";
        }
        return value instanceof MappingNode ? "a mapping" : "a list";
    }

    private static ConfigProblem problem(String file, Node at, String key, String message) {
        return new ConfigProblem(
                file,
                ConfigParser.line(at),
                null,
                key == null ? ConfigParser.CLUSTER : ConfigParser.CLUSTER + ": " + key,
                message);
    }
}
