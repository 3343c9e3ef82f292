package dev.vsm.api;

import dev.vsm.config.ClusterSettings;
import dev.vsm.engine.cluster.Cluster;
import dev.vsm.engine.cluster.ClusterConnector;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ServiceLoader;
import java.util.function.Consumer;

/**
 * Cluster mode for an embedder: the connector the {@code vsm-cluster} jar provides
 * ({@code META-INF/services}), looked up only when the configuration has a {@code cluster:} block.
 */
final class ServiceCluster implements ClusterConnector {
    private final ClassLoader loader;

    ServiceCluster(ClassLoader loader) {
        this.loader = loader;
    }

    @Override
    public Cluster open(
            ClusterSettings settings, Path cacheFile, Duration lockTimeout, boolean changing, Consumer<String> warn) {
        ClusterConnector connector = ServiceLoader.load(ClusterConnector.class, loader)
                .findFirst()
                .orElseThrow(() -> dev.vsm.spi.StorageException.failed(
                        "the configuration has a 'cluster' block, but vsm-cluster is not on the class path"));
        return connector.open(settings, cacheFile, lockTimeout, changing, warn);
    }
}
