package dev.vsm.cluster;

import static dev.vsm.cluster.Fixtures.bytes;
import static dev.vsm.cluster.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.config.ConfigUnavailableException;
import dev.vsm.config.StorageConfigs;
import dev.vsm.engine.cluster.Cluster;
import dev.vsm.spi.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An ensemble of three with two servers stopped: changes are refused, reads use the cache, a restart heals. */
class NoQuorumTest {
    @TempDir
    Path tmp;

    TestingCluster ensemble;
    final List<Cluster> clusters = new ArrayList<>();
    final List<String> warnings = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        ensemble = new TestingCluster(List.of(
                Fixtures.zooKeeperIn(tmp, "zookeeper1"),
                Fixtures.zooKeeperIn(tmp, "zookeeper2"),
                Fixtures.zooKeeperIn(tmp, "zookeeper3")));
        ensemble.start();
        awaitQuorum();
    }

    /**
     * Waits (at most 60 s) until a sync round-trips through the ensemble's leader: the clusters
     * below wait 2 s for ZooKeeper, which an election on a loaded machine may outlast.
     */
    private void awaitQuorum() throws Exception {
        try (CuratorFramework probe =
                CuratorFrameworkFactory.newClient(ensemble.getConnectString(), 10_000, 5_000, new RetryOneTime(200))) {
            probe.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try {
                    if (probe.blockUntilConnected(5, TimeUnit.SECONDS)) {
                        probe.sync().forPath("/");
                        probe.checkExists().forPath("/");
                        return;
                    }
                } catch (Exception e) {
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                }
                assertThat(System.nanoTime())
                        .as("the ensemble elected a leader in 60 s")
                        .isLessThan(deadline);
            }
        }
    }

    @AfterEach
    void stop() throws Exception {
        clusters.forEach(Cluster::close);
        ensemble.close();
    }

    private Cluster cluster(String cacheName, boolean changing) {
        Cluster c = new ZooKeeperCluster(
                Fixtures.settings(ensemble.getConnectString(), "n1", 2, tmp),
                tmp.resolve(cacheName),
                changing,
                warnings::add);
        clusters.add(c);
        return c;
    }

    private List<InstanceSpec> stopTwo() throws Exception {
        List<InstanceSpec> stopped = new ArrayList<>(ensemble.getInstances()).subList(0, 2);
        for (InstanceSpec spec : stopped) {
            ensemble.killServer(spec);
        }
        return stopped;
    }

    @Test
    void changesFailReadsUseTheCacheAndARestartHeals() throws Exception {
        cluster("cache.yaml", true).init(bytes(Fixtures.SEED), false, false, l -> {});
        StorageConfigs seen = Fixtures.store(cluster("cache.yaml", false), tmp).load();
        List<InstanceSpec> stopped = stopTwo();

        assertThatThrownBy(() -> Fixtures.store(cluster("cache.yaml", true), tmp)
                        .update("local", Map.of("disable", true), List.of(), null))
                .isInstanceOf(ConfigUnavailableException.class)
                .hasMessage(
                        "no quorum! (ZooKeeper " + ensemble.getConnectString() + " not reachable): nothing changed");
        assertThatThrownBy(() -> cluster("cache.yaml", true)
                        .storageLocks(new NoLocks(), id -> true)
                        .withStorageLock("san", () -> "ran"))
                .hasMessage(
                        "no quorum! (ZooKeeper " + ensemble.getConnectString() + " not reachable): nothing changed");
        assertThatThrownBy(() -> cluster("cache.yaml", true).init(bytes("storages:\n"), true, false, l -> {}))
                .hasMessageStartingWith("no quorum! (ZooKeeper ");
        assertThat(warnings).isEmpty();

        StorageConfigs cached =
                Fixtures.store(cluster("cache.yaml", false), tmp).load();
        assertThat(cached.ids()).isEqualTo(seen.ids());
        assertThat(cached.digest()).isEqualTo(seen.digest());
        assertThat(warnings)
                .singleElement()
                .asString()
                .matches(
                        "no quorum: using the cluster configuration cached at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        // the server left alone may take a client for a moment before it notices it lost quorum
        assertThat(cluster("cache.yaml", false).status().session()).isIn("not connected", "SUSPENDED", "LOST");
        assertThatThrownBy(() -> cluster("no-cache.yaml", false).export())
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FAILED))
                .hasMessage("no quorum! (ZooKeeper " + ensemble.getConnectString()
                        + " not reachable) and no cached configuration");
        assertThat(Files.exists(tmp.resolve("no-cache.yaml"))).isFalse();

        for (InstanceSpec spec : stopped) {
            ensemble.restartServer(spec);
        }
        awaitQuorum();
        assertThat(text(cluster("cache.yaml", false).export())).isEqualTo(Fixtures.SEED);
        Fixtures.store(cluster("cache.yaml", true), tmp).update("local", Map.of("disable", true), List.of(), null);
        assertThat(text(cluster("cache.yaml", false).export())).contains("disable: true");
        assertThat(Files.readString(tmp.resolve("cache.yaml"))).contains("disable: true");
    }

    /** Local locks that are never asked for: the storage is shared. */
    private static final class NoLocks implements dev.vsm.spi.StorageLocks {
        @Override
        public <T> T withStorageLock(String storageId, java.util.function.Supplier<T> work) {
            throw new AssertionError("a shared storage takes the cluster lock");
        }

        @Override
        public boolean tryExclusive(String name, Runnable work) {
            throw new AssertionError("claims are cluster-wide");
        }
    }
}
