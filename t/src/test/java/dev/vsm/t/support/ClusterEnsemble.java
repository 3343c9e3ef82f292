package dev.vsm.t.support;

import dev.vsm.testing.FreePorts;
import dev.vsm.testing.Trees;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Three real ZooKeeper servers on 127.0.0.1 (Curator's {@link TestingCluster}) inside the test
 * JVM, for the vsm processes of a test class to share, plus a Curator client of the test's own to
 * read what vsm wrote. Register it once per class:
 * <pre>{@code
 * @RegisterExtension
 * static final ClusterEnsemble zk = new ClusterEnsemble();
 * }</pre>
 * Each test takes its own znode root ({@link #newRoot}), so the tests of a class never see each
 * other's configuration, locks or nodes. Everything is stopped after the class, also when it failed.
 * The nodes share one cluster secret ({@link #secretFile}), as the nodes of a real cluster do once
 * it has been copied to each; the test's client authenticates with it too, to read vsm's tree.
 */
public final class ClusterEnsemble implements BeforeAllCallback, AfterAllCallback {
    /**
     * The servers' tick: sessions may last 2 to 20 ticks, so 500 ms allows vsm's session-timeout
     * from 1 s to 10 s (its default), and the 4 s the kill test uses is honoured as asked.
     */
    public static final int TICK_MILLIS = 500;

    private Path home;
    private Path secretFile;
    private TestingCluster cluster;
    private CuratorFramework client;
    private final List<InstanceSpec> stopped = new ArrayList<>();

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        close();
    }

    public void start() throws Exception {
        // Each server's data directory, and the configuration file ZooKeeper writes beside it,
        // under a directory of the ensemble's own that close() removes: Curator's default data
        // directories sit straight in /tmp, where those files would stay.
        home = Files.createTempDirectory("vsm-zookeeper-");
        try {
            List<InstanceSpec> specs = new ArrayList<>();
            for (int id = 1; id <= 3; id++) {
                File data = Files.createDirectories(home.resolve("server" + id + "/data"))
                        .toFile();
                // ports below the ephemeral range (FreePorts says why); maxClientCnxns 0: no
                // per-address limit (24 vsm processes share 127.0.0.1)
                specs.add(new InstanceSpec(
                        data,
                        FreePorts.next(),
                        FreePorts.next(),
                        FreePorts.next(),
                        true,
                        id,
                        TICK_MILLIS,
                        0,
                        Map.of(),
                        "127.0.0.1"));
            }
            cluster = new TestingCluster(specs);
            cluster.start();
            secretFile = writeSecret(home.resolve("cluster.secret"));
            client = CuratorFrameworkFactory.builder()
                    .connectString(connectString())
                    .authorization("digest", ("vsm:" + secret(secretFile)).getBytes(StandardCharsets.US_ASCII))
                    .retryPolicy(new RetryOneTime(200))
                    .sessionTimeoutMs(10_000)
                    .connectionTimeoutMs(5_000)
                    .build();
            client.start();
            awaitQuorum();
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    public void close() throws IOException {
        if (client != null) {
            client.close();
            client = null;
        }
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
        if (home != null) {
            Trees.delete(home);
            home = null;
        }
    }

    /** The connect string, {@code 127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3}: the value of {@code cluster.zookeeper}. */
    public String connectString() {
        return cluster.getConnectString();
    }

    /** The cluster secret the nodes of {@link #node} share (root's, mode 0600). */
    Path secretFile() {
        return secretFile;
    }

    /** Writes {@code file} as {@code vsm cluster init} would (a random secret, root's, mode 0600); returns it. */
    public static Path writeSecret(Path file) throws IOException {
        byte[] random = new byte[32];
        ThreadLocalRandom.current().nextBytes(random);
        Files.writeString(
                file,
                Base64.getUrlEncoder().withoutPadding().encodeToString(random) + "\n",
                StandardOpenOption.CREATE_NEW);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    /** The secret in {@code file}. */
    public static String secret(Path file) throws IOException {
        return Files.readString(file).strip();
    }

    /** A znode root no other test uses, e.g. {@code /vsm-k3j9x2}. */
    public static String newRoot() {
        return "/vsm-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
    }

    // --- losing and regaining quorum

    /** Stops {@code count} of the three servers (the ensemble loses quorum at two). */
    public void stopServers(int count) throws Exception {
        for (InstanceSpec spec : cluster.getInstances()) {
            if (stopped.size() == count) {
                break;
            }
            if (!stopped.contains(spec) && cluster.killServer(spec)) {
                stopped.add(spec);
            }
        }
        if (stopped.size() != count) {
            throw new AssertionError("could stop only " + stopped.size() + " of " + count + " ZooKeeper servers");
        }
    }

    /** Starts the stopped servers again and waits (at most 60 s) until the ensemble answers. */
    public void restartStopped() throws Exception {
        for (InstanceSpec spec : List.copyOf(stopped)) {
            cluster.restartServer(spec);
            stopped.remove(spec);
        }
        awaitQuorum();
    }

    /** Waits until a write round-trips through the leader (a sync and a read), at most 60 s. */
    public void awaitQuorum() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (client.blockUntilConnected(5, TimeUnit.SECONDS)) {
                    client.sync().forPath("/");
                    client.checkExists().forPath("/");
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the ZooKeeper ensemble " + connectString() + " did not regain quorum in 60 s", last);
    }

    // --- reading what vsm wrote

    /** The test's own Curator client (connected to the whole ensemble). */
    public CuratorFramework client() {
        return client;
    }

    /** A znode's data and version, or empty when it does not exist. */
    public Optional<Znode> read(String path) throws Exception {
        Stat stat = new Stat();
        try {
            byte[] data = client.getData().storingStatIn(stat).forPath(path);
            return Optional.of(new Znode(data == null ? new byte[0] : data, stat.getVersion()));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        }
    }

    /** A znode's children (empty when it does not exist). */
    public List<String> children(String path) throws Exception {
        try {
            return client.getChildren().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            return List.of();
        }
    }

    /** One znode as read: its data and version. */
    public record Znode(byte[] data, int version) {
        public String text() {
            return new String(data, StandardCharsets.UTF_8);
        }
    }

    // --- vsm nodes

    /**
     * A vsm "node": the real {@code cli/vsm} with a sandbox of its own under {@code sandbox/<name>}
     * (so its own lock directory: only ZooKeeper can keep it apart from the other nodes) and a
     * local config file holding just the {@code cluster:} block.
     */
    public Vsm node(Path sandbox, String name, String root, int sessionTimeoutSeconds) {
        return node(sandbox, name, root, sessionTimeoutSeconds, connectString());
    }

    /** As {@link #node(Path, String, String, int)}, reaching the servers at {@code zookeeper} (through a relay). */
    public Vsm node(Path sandbox, String name, String root, int sessionTimeoutSeconds, String zookeeper) {
        Vsm vsm = new Vsm(createDirectories(sandbox.resolve(name)));
        return vsm.writeConfig(
                clusterBlock(zookeeper, name, root, sessionTimeoutSeconds) + "  secret-file: " + secretFile + "\n");
    }

    /**
     * The {@code cluster:} block of a local config file (its secret file the default,
     * {@code cluster.secret} beside the config file).
     */
    public static String clusterBlock(String zookeeper, String node, String root, int sessionTimeoutSeconds) {
        return """
                cluster:
                  zookeeper: %s
                  node: %s
                  root: %s
                  session-timeout: %d
                """.formatted(zookeeper, node, root, sessionTimeoutSeconds);
    }

    /** Seeds {@code root} through {@code node} with {@code vsm cluster init --from} a file holding {@code storagesYaml}. */
    public static void seed(Vsm node, String storagesYaml) {
        Path file = node.sandbox().resolve("seed-storage.yaml");
        try {
            Files.writeString(file, storagesYaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        node.run("cluster", "init", "--from", file.toString()).ok();
    }

    private static Path createDirectories(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
