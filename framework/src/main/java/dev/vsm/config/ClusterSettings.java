package dev.vsm.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The {@code cluster:} block of the local configuration file: vsm runs in cluster mode, its
 * storage configuration and the locks of shared storages in ZooKeeper.
 *
 * @param zookeeper      the ensemble, {@code host:port[,host:port...]} (Curator's connect string)
 * @param node           this node's name; it wins over {@code $VSM_NODE} and the host name
 * @param root           the absolute znode path under which vsm keeps its data ({@code /vsm})
 * @param sessionTimeout the ZooKeeper session timeout: how long a killed holder's locks outlive it
 * @param secretFile     the file holding the secret vsm authenticates to ZooKeeper with (digest
 *                       user {@code vsm}): {@code cluster.secret} beside the configuration file
 *                       unless {@code secret-file} names another
 */
public record ClusterSettings(String zookeeper, String node, String root, Duration sessionTimeout, Path secretFile) {
    public static final String DEFAULT_ROOT = "/vsm";
    /** The secret file's name beside the configuration file when {@code secret-file} is not given. */
    public static final String DEFAULT_SECRET_FILE = "cluster.secret";

    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);
    /** The longest a command waits for a connection (or for quorum) before it gives up. */
    static final Duration MAX_CONNECT_WAIT = Duration.ofSeconds(5);

    public ClusterSettings {
        requireNonNull(zookeeper, "zookeeper");
        requireNonNull(node, "node");
        requireNonNull(root, "root");
        requireNonNull(sessionTimeout, "sessionTimeout");
        secretFile = requireNonNull(secretFile, "secretFile").toAbsolutePath().normalize();
    }

    /** How long a command waits for a connection: the session timeout, at most 5 s. */
    public Duration connectWait() {
        return sessionTimeout.compareTo(MAX_CONNECT_WAIT) < 0 ? sessionTimeout : MAX_CONNECT_WAIT;
    }

    /** The znode holding the storage configuration. */
    public String configPath() {
        return root + "/config";
    }
}
