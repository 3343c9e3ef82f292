package dev.vsm.cluster;

import static dev.vsm.cluster.Fixtures.bytes;
import static dev.vsm.cluster.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.config.ConfigSource;
import dev.vsm.config.ConfigStore;
import dev.vsm.config.StorageConfigs;
import dev.vsm.engine.cluster.Cluster;
import dev.vsm.spi.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The storage configuration at {@code <root>/config} on a real (in-process) ZooKeeper server. */
class ConfigInZooKeeperTest {
    @TempDir
    Path tmp;

    TestingServer server;
    final List<Cluster> clusters = new ArrayList<>();
    final List<String> warnings = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(Fixtures.zooKeeperIn(tmp, "zookeeper"), true);
    }

    @AfterEach
    void stop() throws Exception {
        clusters.forEach(Cluster::close);
        server.close();
    }

    private Cluster cluster(String node, boolean changing) {
        Cluster c = new ZooKeeperCluster(
                Fixtures.settings(server.getConnectString(), node, 10, tmp),
                tmp.resolve(node + "/cluster-config.yaml"),
                changing,
                warnings::add);
        clusters.add(c);
        return c;
    }

    @Test
    void initThenExportGivesTheSameBytes() {
        List<String> lines = new ArrayList<>();
        cluster("n1", true).init(bytes(Fixtures.SEED), false, true, lines::add);
        assertThat(lines).containsExactly("+ zookeeper create /vsm/config");
        assertThatThrownBy(() -> cluster("n1", false).export())
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage(
                        "cluster configuration not found at /vsm/config: seed it with 'vsm cluster init --from FILE'");

        cluster("n1", true).init(bytes(Fixtures.SEED), false, false, l -> {});
        assertThat(text(cluster("n2", false).export())).isEqualTo(Fixtures.SEED);
        assertThat(warnings).isEmpty();
    }

    @Test
    void initRefusesToReplaceUnlessForced() {
        cluster("n1", true).init(bytes(Fixtures.SEED), false, false, l -> {});
        assertThatThrownBy(() -> cluster("n1", true).init(bytes("storages:\n"), false, false, l -> {}))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage(
                        "cluster configuration already exists at /vsm/config (version 0): use --force to replace it");
        assertThat(text(cluster("n1", false).export())).isEqualTo(Fixtures.SEED);
        cluster("n1", true).init(bytes("storages:\n"), true, false, l -> {});
        assertThat(text(cluster("n1", false).export())).isEqualTo("storages:\n");
    }

    @Test
    void aStoreReadsTheConfigurationWithTheDigestOfItsBytesAndCachesIt() throws Exception {
        cluster("n1", true).init(bytes(Fixtures.SEED), false, false, l -> {});
        StorageConfigs configs = Fixtures.store(cluster("n2", false), tmp).load();
        assertThat(configs.ids()).containsExactly("local", "san");
        assertThat(configs.require("san").shared()).isTrue();
        assertThat(configs.digest()).isEqualTo(ZooKeeperCluster.sha1(bytes(Fixtures.SEED)));
        assertThat(configs.origin()).isEqualTo(StorageConfigs.Origin.CLUSTER);
        assertThat(Files.readString(tmp.resolve("n2/cluster-config.yaml"))).isEqualTo(Fixtures.SEED);
    }

    @Test
    void concurrentEditsFromTwoNodesAllLand() throws Exception {
        cluster("n1", true).init(bytes(Fixtures.SEED), false, false, l -> {});
        ConfigStore one = Fixtures.store(cluster("n1", true), tmp);
        ConfigStore two = Fixtures.store(cluster("n2", true), tmp);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> edits = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                ConfigStore store = i % 2 == 0 ? one : two;
                String id = "s" + i;
                edits.add(pool.submit(() -> store.add("dir", id, Map.of("path", "/srv/" + id))));
            }
            for (Future<?> f : edits) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        StorageConfigs after = Fixtures.store(cluster("n3", false), tmp).load();
        assertThat(after.ids())
                .containsExactlyInAnyOrder("local", "san", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7");
    }

    @Test
    void aStaleDigestIsRefusedAndNothingIsWritten() {
        cluster("n1", true).init(bytes(Fixtures.SEED), false, false, l -> {});
        ConfigStore one = Fixtures.store(cluster("n1", true), tmp);
        String digest = one.load().digest();
        Fixtures.store(cluster("n2", true), tmp).update("local", Map.of("disable", true), List.of(), null);
        byte[] before = cluster("n3", false).export();
        assertThatThrownBy(() -> one.update("san", Map.of("disable", true), List.of(), digest))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage(
                        "update storage failed: detected modified configuration - file changed by other user? Try again.");
        assertThat(cluster("n3", false).export()).isEqualTo(before);
    }

    @Test
    void aWriteOfAnOutdatedVersionIsRefused() {
        cluster("n1", true).init(bytes(Fixtures.SEED), false, false, l -> {});
        ConfigSource source = cluster("n1", true).configSource();
        ConfigSource.Stored read = source.read().orElseThrow();
        assertThat(read.version()).isZero();
        Fixtures.store(cluster("n2", true), tmp).update("local", Map.of("disable", true), List.of(), null);
        byte[] landed = cluster("n3", false).export();

        assertThatThrownBy(() -> source.write(read, bytes("storages:\n")))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FAILED))
                .hasMessage("configuration changed on another node meanwhile; nothing written, try again");
        assertThat(cluster("n3", false).export()).isEqualTo(landed);
        assertThat(text(landed)).contains("disable: true");
    }

    @Test
    void dryRunEditsDescribeTheVersionedWrite() {
        cluster("n1", true).init(bytes(Fixtures.SEED), false, false, l -> {});
        var result = Fixtures.store(cluster("n1", true), tmp)
                .apply(new dev.vsm.config.ConfigEdit.Remove("local"), dev.vsm.config.ConfigHooks.NONE, true);
        assertThat(result.changes()).containsExactly("+ zookeeper set /vsm/config --version 0");
        assertThat(text(cluster("n1", false).export())).isEqualTo(Fixtures.SEED);
    }
}
