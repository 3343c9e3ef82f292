package dev.vsm.engine.cluster;

import dev.vsm.config.ClusterSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/** Opens a {@link Cluster}: the service the {@code cluster} module provides ({@code META-INF/services}). */
public interface ClusterConnector {
    /**
     * @param settings  the local file's cluster block
     * @param cacheFile where the last configuration read from ZooKeeper is kept, for read-only commands without quorum
     * @param lockTimeout how long the cluster's locks are waited for ({@code $VSM_LOCK_TIMEOUT}, as the local ones)
     * @param changing  whether the command changes something: then it needs quorum for every step
     * @param warn      receives warnings (without the {@code warning: } prefix)
     */
    Cluster open(
            ClusterSettings settings, Path cacheFile, Duration lockTimeout, boolean changing, Consumer<String> warn);
}
