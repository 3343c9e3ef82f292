package dev.vsm.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.engine.cluster.Cluster;
import dev.vsm.engine.cluster.ClusterStatus;
import dev.vsm.engine.cluster.ClusterStatus.LockHeld;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageLocks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cluster locks of shared storages between two ZooKeeper clients (two "nodes"), on a real server. */
class ClusterLocksTest {
    private static final Duration SHORT = Duration.ofMillis(300);
    private static final long PID = ProcessHandle.current().pid();

    @TempDir
    Path tmp;

    TestingServer server;
    final List<Cluster> clusters = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(Fixtures.zooKeeperIn(tmp, "zookeeper"), true);
    }

    @AfterEach
    void stop() throws Exception {
        clusters.forEach(Cluster::close);
        server.close();
    }

    private ZooKeeperCluster cluster(String node, int sessionTimeoutSeconds) {
        ZooKeeperCluster c = new ZooKeeperCluster(
                Fixtures.settings(server.getConnectString(), node, sessionTimeoutSeconds, tmp),
                tmp.resolve(node + ".yaml"),
                true,
                w -> {});
        clusters.add(c);
        return c;
    }

    /** The local locks of a test: they record which storages were locked locally. */
    private static final class LocalLocks implements StorageLocks {
        final List<String> locked = new ArrayList<>();

        @Override
        public <T> T withStorageLock(String storageId, Supplier<T> work) {
            locked.add(storageId);
            return work.get();
        }

        @Override
        public boolean tryExclusive(String name, Runnable work) {
            throw new AssertionError("claims are cluster-wide in cluster mode");
        }
    }

    /** Holds {@code name} on {@code c} in another thread until {@code release} counts down; returns when it is held. */
    private static CompletableFuture<Void> holdInThread(ZooKeeperCluster c, String name, CountDownLatch release)
            throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> c.withLock(name, Duration.ofSeconds(30), () -> {
            held.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }));
        held.await();
        return done;
    }

    @Test
    void sharedStoragesTakeTheClusterLockOthersTheLocalOne() {
        LocalLocks local = new LocalLocks();
        StorageLocks locks = cluster("n1", 10).storageLocks(local, id -> id.equals("san"));
        ZooKeeperCluster other = cluster("n2", 10);
        List<LockHeld> seen = locks.withStorageLock("san", () -> other.status().locks());
        assertThat(seen).containsExactly(new LockHeld("/vsm/locks/storage-san", "n1 pid " + PID));
        assertThat(locks.withStorageLock("local", () -> other.status().locks())).isEmpty();
        assertThat(local.locked).containsExactly("local");
    }

    @Test
    void aLockHeldOnOneNodeMakesTheOtherWaitAndTimeOut() throws Exception {
        ZooKeeperCluster one = cluster("n1", 10);
        ZooKeeperCluster two = cluster("n2", 10);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> holder = holdInThread(one, "storage-san", release);
        try {
            assertThatThrownBy(() -> two.withLock("storage-san", SHORT, () -> "ran"))
                    .isInstanceOfSatisfying(
                            StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FAILED))
                    .hasMessage("can't lock '/vsm/locks/storage-san' - got timeout");
            assertThat(two.storageLocks(new LocalLocks(), id -> true).tryExclusive("x", () -> {}))
                    .isTrue();
        } finally {
            release.countDown();
            holder.get(30, TimeUnit.SECONDS);
        }
        assertThat(two.withLock("storage-san", SHORT, () -> "ran")).isEqualTo("ran");
    }

    @Test
    void claimsAreNotTakenTwice() throws Exception {
        ZooKeeperCluster one = cluster("n1", 10);
        StorageLocks two = cluster("n2", 10).storageLocks(new LocalLocks(), id -> true);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> holder = holdInThread(one, "claim-vg_san-vm-100-disk-0", release);
        List<String> ran = new ArrayList<>();
        try {
            assertThat(two.tryExclusive("vg_san-vm-100-disk-0", () -> ran.add("two")))
                    .isFalse();
        } finally {
            release.countDown();
            holder.get(30, TimeUnit.SECONDS);
        }
        assertThat(two.tryExclusive("vg_san-vm-100-disk-0", () -> ran.add("two")))
                .isTrue();
        assertThat(ran).containsExactly("two");
    }

    @Test
    void locksAreReentrantWithinAThread() {
        ZooKeeperCluster one = cluster("n1", 10);
        String inner = one.withLock("storage-san", SHORT, () -> one.withLock("storage-san", SHORT, () -> "inner"));
        assertThat(inner).isEqualTo("inner");
        assertThat(cluster("n2", 10).withLock("storage-san", SHORT, () -> "free again"))
                .isEqualTo("free again");
    }

    @Test
    void theLockOfAHolderWhoseSessionExpiredIsFree() throws Exception {
        ZooKeeperCluster one = cluster("n1", 2);
        ZooKeeperCluster two = cluster("n2", 10);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> holder = holdInThread(one, "storage-san", release);
        try {
            assertThatThrownBy(() -> two.withLock("storage-san", SHORT, () -> "ran"))
                    .hasMessageContaining("got timeout");
            one.expireSession();
            // the server deletes the holder's ephemeral lock znode with its session
            assertThat(two.withLock(
                            "storage-san",
                            Duration.ofSeconds(30),
                            () -> two.status().locks()))
                    .containsExactly(new LockHeld("/vsm/locks/storage-san", "n2 pid " + PID));
            assertThatThrownBy(() -> one.withLock("storage-x", SHORT, () -> "ran"))
                    .isInstanceOf(StorageException.class)
                    .hasMessageStartingWith(
                            "no quorum! (the connection to ZooKeeper " + server.getConnectString() + " was lost");
        } finally {
            release.countDown();
            holder.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aHolderWhoseSessionExpiredFailsItsNextCheckBeforeChanging() throws Exception {
        ZooKeeperCluster one = cluster("n1", 2);
        StorageLocks oneLocks = one.storageLocks(new LocalLocks(), id -> true);
        ZooKeeperCluster two = cluster("n2", 10);
        CountDownLatch checkedOnce = new CountDownLatch(1);
        CountDownLatch otherGotIt = new CountDownLatch(1);
        CompletableFuture<String> holder = CompletableFuture.supplyAsync(() -> oneLocks.withStorageLock("san", () -> {
            oneLocks.checkHeld(); // held: passes
            checkedOnce.countDown();
            await(otherGotIt);
            try {
                oneLocks.checkHeld();
                return "went on under a lock it no longer held";
            } catch (StorageException e) {
                return e.getMessage();
            }
        }));
        assertThat(checkedOnce.await(30, TimeUnit.SECONDS)).isTrue();
        one.expireSession();
        assertThat(two.withLock("storage-san", Duration.ofSeconds(30), () -> "n2 holds it"))
                .isEqualTo("n2 holds it");
        otherGotIt.countDown();
        assertThat(holder.get(30, TimeUnit.SECONDS))
                .startsWith("no quorum! lost the cluster lock '/vsm/locks/storage-san'")
                .endsWith(": stopped before the next change");
        oneLocks.checkHeld(); // outside the lock there is nothing to lose
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void statusShowsNodesAndTheirProcesses() {
        ZooKeeperCluster one = cluster("n1", 10);
        one.withLock("storage-san", SHORT, () -> null);
        ClusterStatus status = cluster("n2", 10).status();
        assertThat(status.session()).isEqualTo("CONNECTED");
        assertThat(status.node()).isEqualTo("n2");
        assertThat(status.nodes()).extracting(ClusterStatus.NodeSeen::name).containsExactly("n1", "n2");
        assertThat(status.nodes()).allSatisfy(n -> {
            assertThat(n.processes()).containsExactly(PID);
            assertThat(n.lastSeen()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        });
        assertThat(status.configVersion()).isNull();
        one.close();
        assertThat(cluster("n3", 10).status().nodes())
                .filteredOn(n -> n.name().equals("n1"))
                .singleElement()
                .satisfies(n -> assertThat(n.processes()).isEmpty());
    }
}
