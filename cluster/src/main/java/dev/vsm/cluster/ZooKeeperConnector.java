package dev.vsm.cluster;

import dev.vsm.config.ClusterSettings;
import dev.vsm.engine.cluster.Cluster;
import dev.vsm.engine.cluster.ClusterConnector;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/** {@link ClusterConnector} on Curator: what {@code META-INF/services} names for the CLI to find. */
public final class ZooKeeperConnector implements ClusterConnector {
    @Override
    public Cluster open(
            ClusterSettings settings, Path cacheFile, Duration lockTimeout, boolean changing, Consumer<String> warn) {
        return new ZooKeeperCluster(settings, cacheFile, lockTimeout, changing, warn);
    }
}
