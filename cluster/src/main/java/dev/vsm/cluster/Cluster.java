package dev.vsm.cluster;

import dev.vsm.config.ClusterSettings;
import dev.vsm.config.ConfigSource;
import dev.vsm.spi.StorageLocks;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Cluster mode, as one vsm process sees it: the storage configuration, the locks of shared
 * storages and the list of nodes, in ZooKeeper (through Curator). The CLI touches this type only
 * after it has seen a {@code cluster:} block, so that without one no ZooKeeper class is loaded.
 *
 * <p>One connection per process, opened on first use and closed by {@link #close()} (which
 * removes this process's ephemeral znodes at once).
 */
public interface Cluster extends AutoCloseable {
    /**
     * @param settings  the local file's cluster block
     * @param cacheFile where the last configuration read from ZooKeeper is kept, for read-only commands without quorum
     * @param changing  whether the command changes something: then it needs quorum for every step
     * @param warn      receives warnings (without the {@code warning: } prefix)
     */
    static Cluster open(ClusterSettings settings, Path cacheFile, boolean changing, Consumer<String> warn) {
        return new ZooKeeperCluster(settings, cacheFile, changing, warn);
    }

    ClusterSettings settings();

    /** The configuration's bytes at {@code <root>/config}, for {@link dev.vsm.config.ConfigStore#clustered}. */
    ConfigSource configSource();

    /**
     * Storage locks: the cluster lock {@code <root>/locks/storage-<id>} for storages that are
     * {@code shared}, {@code local}'s for the others; claims are cluster-wide.
     */
    StorageLocks storageLocks(StorageLocks local, Predicate<String> shared);

    /**
     * Stores {@code yaml} at {@code <root>/config}.
     *
     * @param dryRun when true, nothing is written; {@code changes} receives the {@code + ...} lines
     * @throws dev.vsm.spi.StorageException (bad input) when a configuration exists and not {@code force}
     */
    void init(byte[] yaml, boolean force, boolean dryRun, Consumer<String> changes);

    /** The stored configuration, exactly (from the cache, with a warning, without quorum). */
    byte[] export();

    /** What {@code vsm cluster status} shows. */
    ClusterStatus status();

    /** Closes the connection, if one was opened; never throws. */
    @Override
    void close();
}
