package dev.vsm.engine.cluster;

import dev.vsm.config.ClusterSettings;
import dev.vsm.config.ConfigSource;
import dev.vsm.spi.StorageLocks;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Cluster mode, as one vsm process sees it: the storage configuration, the locks of shared
 * storages and the list of nodes, in ZooKeeper. The implementation (module {@code cluster},
 * Curator) is found through {@link ClusterConnector} only once a {@code cluster:} block has been
 * seen, from jars kept off the main class path: without a block no ZooKeeper class is loaded and
 * no ZooKeeper jar is even opened.
 *
 * <p>One connection per process, opened on first use and closed by {@link #close()} (which
 * removes this process's ephemeral znodes at once).
 */
public interface Cluster extends AutoCloseable {
    ClusterSettings settings();

    /** The configuration's bytes at {@code <root>/config}, for {@link dev.vsm.config.ConfigStore#clustered}. */
    ConfigSource configSource();

    /**
     * Storage locks: the cluster lock {@code <root>/locks/storage-<id>} for storages that are
     * {@code shared}, {@code local}'s for the others; claims are cluster-wide.
     */
    StorageLocks storageLocks(StorageLocks local, Predicate<String> shared);

    /**
     * Stores {@code yaml} at {@code <root>/config}, in a tree only vsm's identity may change.
     * First creates the secret file vsm authenticates with ({@link ClusterSettings#secretFile()})
     * when there is none. With {@code force} it also makes a tree others may change vsm's alone
     * (its ACLs set, locks planted by others removed).
     *
     * @param yaml   the configuration to store; null (only with {@code force}) keeps the stored one
     * @param dryRun when true, nothing is written; {@code changes} receives the {@code + ...} lines
     * @throws dev.vsm.spi.StorageException (bad input) when a configuration exists, or the tree
     *                                      may be changed by others, and not {@code force}
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
