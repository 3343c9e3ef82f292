package dev.vsm.cluster;

import static dev.vsm.cluster.Fixtures.bytes;
import static dev.vsm.cluster.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.config.ClusterSettings;
import dev.vsm.engine.cluster.Cluster;
import dev.vsm.spi.StorageException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * vsm's tree in a real (in-process) ZooKeeper server is vsm's alone: a client of the ensemble
 * without the secret (none, a wrong one, its own user) can neither read nor change the
 * configuration, plant or delete a lock, nor change an ACL; a tree others may change is refused
 * until {@code init --force}; NoAuth is reported as such, never as {@code no quorum!}.
 */
class ClusterAuthTest {
    /** world:anyone:cdrwa, what a client gets by default (ZooDefs.Ids.OPEN_ACL_UNSAFE). */
    private static final List<ACL> OPEN =
            Collections.singletonList(new ACL(ZooDefs.Perms.ALL, new Id("world", "anyone")));

    private static final String EVIL = "storages:\n  evil:\n    type: dir\n    path: /etc\n    shared: true\n";

    @TempDir
    Path tmp;

    TestingServer server;
    final List<Cluster> clusters = new ArrayList<>();
    final List<CuratorFramework> raw = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(Fixtures.zooKeeperIn(tmp, "zookeeper"), true);
    }

    @AfterEach
    void stop() throws Exception {
        clusters.forEach(Cluster::close);
        for (CuratorFramework zk : raw) {
            zk.close();
        }
        server.close();
    }

    private ZooKeeperCluster cluster(Path secretDir, boolean changing) {
        ZooKeeperCluster c = new ZooKeeperCluster(
                Fixtures.settings(server.getConnectString(), "n1", 10, secretDir),
                tmp.resolve("n1/cluster-config.yaml"),
                Duration.ofSeconds(2),
                changing,
                w -> {});
        clusters.add(c);
        return c;
    }

    /** A plain ZooKeeper client, authenticated as {@code digest} when it is not null ({@code user:password}). */
    private CuratorFramework client(String digest) throws Exception {
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .retryPolicy(new RetryOneTime(100));
        if (digest != null) {
            builder.authorization("digest", digest.getBytes(StandardCharsets.UTF_8));
        }
        CuratorFramework zk = builder.build();
        raw.add(zk);
        zk.start();
        assertThat(zk.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        return zk;
    }

    private String secret(Path dir) throws Exception {
        return Files.readString(dir.resolve(ClusterSettings.DEFAULT_SECRET_FILE))
                .strip();
    }

    /** Every znode of the tree under {@code path} with its data, read as vsm. */
    private static Map<String, String> tree(CuratorFramework zk, String path) throws Exception {
        Map<String, String> all = new TreeMap<>();
        byte[] data = zk.getData().forPath(path);
        all.put(path, data == null ? "" : new String(data, StandardCharsets.UTF_8));
        for (String child : zk.getChildren().forPath(path)) {
            all.putAll(tree(zk, path + "/" + child));
        }
        return all;
    }

    private static void noAuth(String what, ThrowingRunnable attempt) {
        assertThatThrownBy(attempt::run).as(what).isInstanceOf(KeeperException.NoAuthException.class);
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void aClientWithoutTheSecretCanNeitherReadNorChangeAnything() throws Exception {
        Path secrets = tmp.resolve("etc");
        ZooKeeperCluster vsm = cluster(secrets, true);
        vsm.init(bytes(Fixtures.SEED), false, false, l -> {});
        String secret = secret(secrets);
        CuratorFramework asVsm = client("vsm:" + secret);
        List<ACL> vsmOnly = List.of(new ACL(ZooDefs.Perms.ALL, new Id("digest", SecretFile.digestId(secret))));

        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch attacked = new CountDownLatch(1);
        Thread holder = new Thread(() -> vsm.withLock("storage-san", Duration.ofSeconds(5), () -> {
            held.countDown();
            try {
                attacked.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }));
        holder.start();
        try {
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
            Map<String, String> before = tree(asVsm, "/vsm");
            String lockNode = "/vsm/locks/storage-san/"
                    + asVsm.getChildren().forPath("/vsm/locks/storage-san").get(0);
            assertThat(before)
                    .containsKeys("/vsm", "/vsm/config", "/vsm/locks", "/vsm/nodes", "/vsm/nodes/n1", lockNode);
            // the secret is nowhere in ZooKeeper: only the SHA-1 of vsm:<secret> is, in the ACLs
            assertThat(before.values()).noneMatch(data -> data.contains(secret));
            for (String path : before.keySet()) {
                assertThat(asVsm.getACL().forPath(path)).as(path).isEqualTo(vsmOnly);
            }

            for (String who : new String[] {null, "vsm:wrong-secret-0123456789", "mallory:" + secret}) {
                CuratorFramework hostile = client(who);
                String as = " as " + (who == null ? "nobody" : who.substring(0, who.indexOf(':')));
                noAuth("read the configuration" + as, () -> hostile.getData().forPath("/vsm/config"));
                noAuth("list the locks" + as, () -> hostile.getChildren().forPath("/vsm/locks"));
                noAuth("read the root's ACL" + as, () -> hostile.getACL().forPath("/vsm"));
                noAuth("set the configuration" + as, () -> hostile.setData().forPath("/vsm/config", bytes(EVIL)));
                noAuth(
                        "plant a lock" + as,
                        () -> hostile.create()
                                .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                                .withACL(OPEN)
                                .forPath("/vsm/locks/storage-san/_c_planted-lock-", bytes("n9 pid 1")));
                noAuth(
                        "plant a lock of a new storage" + as,
                        () -> hostile.create()
                                .withMode(CreateMode.PERSISTENT)
                                .withACL(OPEN)
                                .forPath("/vsm/locks/storage-new", new byte[0]));
                noAuth("delete the held lock" + as, () -> hostile.delete().forPath(lockNode));
                noAuth(
                        "delete a node's registration" + as,
                        () -> hostile.delete().forPath("/vsm/nodes/n1"));
                noAuth("delete the configuration" + as, () -> hostile.delete().forPath("/vsm/config"));
                noAuth(
                        "open the root's ACL" + as,
                        () -> hostile.setACL().withACL(OPEN).forPath("/vsm"));
                noAuth(
                        "open the configuration's ACL" + as,
                        () -> hostile.setACL().withACL(OPEN).forPath("/vsm/config"));
                noAuth(
                        "open the lock's ACL" + as,
                        () -> hostile.setACL().withACL(OPEN).forPath(lockNode));
            }

            assertThat(tree(asVsm, "/vsm")).isEqualTo(before);
            for (String path : before.keySet()) {
                assertThat(asVsm.getACL().forPath(path)).as(path).isEqualTo(vsmOnly);
            }
            assertThat(text(cluster(secrets, false).export())).isEqualTo(Fixtures.SEED);
        } finally {
            attacked.countDown();
            holder.join(10_000);
        }
    }

    @Test
    void aTreeOthersMayChangeIsRefusedUntilInitForceMakesItVsmsAlone() throws Exception {
        // planted before vsm's first init, by a client of the ensemble without any secret
        CuratorFramework hostile = client(null);
        hostile.create().withMode(CreateMode.PERSISTENT).withACL(OPEN).forPath("/vsm", new byte[0]);
        hostile.create().withMode(CreateMode.PERSISTENT).withACL(OPEN).forPath("/vsm/config", bytes(EVIL));
        hostile.create().withMode(CreateMode.PERSISTENT).withACL(OPEN).forPath("/vsm/locks", new byte[0]);
        hostile.create().withMode(CreateMode.PERSISTENT).withACL(OPEN).forPath("/vsm/locks/storage-san", new byte[0]);
        String planted = hostile.create()
                .withMode(CreateMode.PERSISTENT_SEQUENTIAL)
                .withACL(OPEN)
                .forPath("/vsm/locks/storage-san/_c_planted-lock-", bytes("n9 pid 1"));

        Path secrets = tmp.resolve("etc");
        String refusal = "ZooKeeper's vsm tree is not vsm's alone: /vsm has the ACL world:anyone:cdrwa, so others may"
                + " change it; nothing used. Run 'vsm cluster init --force' on a node with the cluster secret to make"
                + " it vsm's alone, then check 'vsm cluster export'";
        for (Consumer<ZooKeeperCluster> use : List.<Consumer<ZooKeeperCluster>>of(
                c -> c.export(),
                c -> c.status(),
                c -> c.configSource().write(new dev.vsm.config.ConfigSource.Stored(bytes("x"), 0), bytes("x")),
                c -> c.storageLocks(new NoLocalLocks(), id -> true).withStorageLock("san", () -> null),
                c -> c.init(bytes(Fixtures.SEED), false, false, l -> {}))) {
            assertThatThrownBy(() -> use.accept(cluster(secrets, true)))
                    .isInstanceOfSatisfying(
                            StorageException.class,
                            e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                    .hasMessage(refusal);
        }
        assertThat(new String(hostile.getData().forPath("/vsm/config"), StandardCharsets.UTF_8))
                .isEqualTo(EVIL);
        assertThat(hostile.checkExists().forPath(planted)).isNotNull();

        List<String> lines = new ArrayList<>();
        cluster(secrets, true).init(null, true, true, lines::add);
        String acl = "digest:" + SecretFile.digestId(secret(secrets)) + ":cdrwa";
        assertThat(lines)
                .containsExactly(
                        "+ zookeeper delete " + planted,
                        "+ zookeeper setAcl /vsm/locks/storage-san " + acl,
                        "+ zookeeper setAcl /vsm/locks " + acl,
                        "+ zookeeper setAcl /vsm/config " + acl,
                        "+ zookeeper setAcl /vsm " + acl);
        assertThat(hostile.checkExists().forPath(planted)).isNotNull(); // a dry run

        // --force alone keeps the stored configuration, for its owner to check
        cluster(secrets, true).init(null, true, false, l -> {});
        assertThat(hostile.checkExists().forPath(planted)).isNull();
        assertThat(text(cluster(secrets, false).export())).isEqualTo(EVIL);
        noAuth("set the configuration", () -> hostile.setData().forPath("/vsm/config", bytes(EVIL)));
        noAuth("open the ACL again", () -> hostile.setACL().withACL(OPEN).forPath("/vsm"));

        cluster(secrets, true).init(bytes(Fixtures.SEED), true, false, l -> {});
        assertThat(text(cluster(secrets, false).export())).isEqualTo(Fixtures.SEED);
        CuratorFramework asVsm = client("vsm:" + secret(secrets));
        assertThat(asVsm.getChildren().forPath("/vsm/locks/storage-san")).isEmpty();
    }

    @Test
    void aWrongSecretOrATreeThatShutsVsmOutIsNotAuthorizedNotNoQuorum() throws Exception {
        cluster(tmp.resolve("a"), true).init(bytes(Fixtures.SEED), false, false, l -> {});
        Path other = tmp.resolve("b"); // another secret, as on a node the file was not copied to
        String message = "not authorized to ZooKeeper's vsm tree (/vsm): check cluster.secret ("
                + other.resolve("cluster.secret")
                + ") is the file 'vsm cluster init' made; a tree whose ACL shuts vsm out must be removed by"
                + " ZooKeeper's superuser";
        for (boolean changing : new boolean[] {false, true}) {
            assertThatThrownBy(() -> cluster(other, changing).export())
                    .isInstanceOfSatisfying(
                            StorageException.class,
                            e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                    .hasMessage(message);
        }
        assertThatThrownBy(() -> cluster(other, true).init(bytes(EVIL), true, false, l -> {}))
                .hasMessage(message);
        assertThat(text(cluster(tmp.resolve("a"), false).export())).isEqualTo(Fixtures.SEED);

        // a root made by someone else, for their user alone, before vsm's init
        CuratorFramework mallory = client("mallory:password");
        mallory.create()
                .withMode(CreateMode.PERSISTENT)
                .withACL(Collections.singletonList(new ACL(ZooDefs.Perms.ALL, new Id("auth", ""))))
                .forPath("/vsm-elsewhere", new byte[0]);
        ZooKeeperCluster shutOut = new ZooKeeperCluster(
                new ClusterSettings(
                        server.getConnectString(),
                        "n1",
                        "/vsm-elsewhere",
                        Duration.ofSeconds(10),
                        tmp.resolve("a/cluster.secret")),
                tmp.resolve("n1/cluster-config.yaml"),
                true,
                w -> {});
        clusters.add(shutOut);
        assertThatThrownBy(() -> shutOut.init(bytes(Fixtures.SEED), true, false, l -> {}))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessageStartingWith(
                        "not authorized to ZooKeeper's vsm tree (/vsm-elsewhere): check" + " cluster.secret (");
    }

    /** Local locks a test never reaches: the storage is shared. */
    private static final class NoLocalLocks implements dev.vsm.spi.StorageLocks {
        @Override
        public <T> T withStorageLock(String storageId, java.util.function.Supplier<T> work) {
            throw new AssertionError("a shared storage takes the cluster lock");
        }

        @Override
        public boolean tryExclusive(String name, Runnable work) {
            throw new AssertionError("not used");
        }
    }
}
