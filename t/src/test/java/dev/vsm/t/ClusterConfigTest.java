package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vsm.t.support.ClusterEnsemble;
import dev.vsm.t.support.Vsm;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The storage configuration in ZooKeeper: edits from several nodes at once all
 * land, a stale {@code --digest} is refused with pve's words, and the znode always parses.
 */
class ClusterConfigTest {
    static final String STALE_DIGEST =
            "update storage failed: detected modified configuration - file changed by other user? Try again.";

    @RegisterExtension
    static final ClusterEnsemble zk = new ClusterEnsemble();

    @TempDir
    Path sandbox;

    private String storages(int count) {
        StringBuilder yaml = new StringBuilder("storages:\n");
        for (int i = 0; i < count; i++) {
            yaml.append("  st")
                    .append(i)
                    .append(":\n    type: dir\n    path: ")
                    .append(sandbox.resolve("st" + i))
                    .append("\n    content: [images]\n    shared: true\n");
        }
        return yaml.toString();
    }

    private static String digest(Vsm node) {
        return node.run("status", "--output-format", "json")
                .ok()
                .json()
                .get(0)
                .get("digest")
                .asText();
    }

    static String sha1(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
    }

    @Test
    void theDigestIsTheZnodesSha1AndEditsFromAnyNodeLand() throws Exception {
        String root = ClusterEnsemble.newRoot();
        Vsm node1 = zk.node(sandbox, "node1", root, 10);
        ClusterEnsemble.seed(node1, storages(2));
        ClusterEnsemble.Znode config = zk.read(root + "/config").orElseThrow();
        assertThat(digest(node1)).isEqualTo(sha1(config.data()));
        assertThat(node1.run("cluster", "export").ok().out()).isEqualTo(config.text());
        assertThat(storagesOf(config.text()).keySet()).containsExactlyInAnyOrder("st0", "st1");

        // set, add and remove from any node land in the znode; set's JSON gives the new digest
        String digest = node1.run("set", "st0", "--content", "images,iso", "--output-format", "json")
                .ok()
                .json()
                .get("digest")
                .asText();
        assertThat(digest)
                .isEqualTo(sha1(zk.read(root + "/config").orElseThrow().data()));
        Vsm node2 = zk.node(sandbox, "node2", root, 10);
        node2.run("add", "dir", "added", "--path", sandbox.resolve("added").toString())
                .ok();
        assertThat(storagesOf(zk.read(root + "/config").orElseThrow().text()).keySet())
                .containsExactlyInAnyOrder("st0", "st1", "added");
        node1.run("remove", "st1").ok();
        assertThat(storagesOf(zk.read(root + "/config").orElseThrow().text()).keySet())
                .containsExactlyInAnyOrder("st0", "added");
        assertThat(node2.run("cluster", "export").ok().out())
                .isEqualTo(zk.read(root + "/config").orElseThrow().text());

        // the node's entry: when it last ran vsm, as JSON with an ISO-8601 time
        Instant before = Instant.now().minusSeconds(1);
        node1.run("status").ok();
        String seen = zk.read(root + "/nodes/node1").orElseThrow().text();
        Instant lastSeen =
                Instant.parse(new ObjectMapper().readTree(seen).get("last-seen").asText());
        assertThat(lastSeen).as(seen).isAfterOrEqualTo(before.truncatedTo(ChronoUnit.SECONDS));
    }

    @Test
    void twoNodesSettingWithTheSameDigestOneWinsTheOtherIsToldToTryAgain() throws Exception {
        String root = ClusterEnsemble.newRoot();
        Vsm node1 = zk.node(sandbox, "node1", root, 10).env("VSM_LOCK_TIMEOUT", ConcurrencyTest.LOCK_WAIT_SECONDS);
        Vsm node2 = zk.node(sandbox, "node2", root, 10).env("VSM_LOCK_TIMEOUT", ConcurrencyTest.LOCK_WAIT_SECONDS);
        ClusterEnsemble.seed(node1, storages(1));
        for (int round = 0; round < 3; round++) {
            String digest = digest(node1);
            assertThat(digest(node2)).as("both nodes see one configuration").isEqualTo(digest);
            ClusterEnsemble.Znode before = zk.read(root + "/config").orElseThrow();
            List<Vsm.Result> results = ConcurrencyTest.together(List.of(
                    () -> node1.run("set", "st0", "--digest", digest, "--content", "images,iso"),
                    () -> node2.run("set", "st0", "--digest", digest, "--content", "images,backup")));
            List<Vsm.Result> won = results.stream().filter(r -> r.exit() == 0).toList();
            List<Vsm.Result> lost = results.stream().filter(r -> r.exit() != 0).toList();
            assertThat(won).as("round %d: %s", round, results).hasSize(1);
            assertThat(lost).as("round %d", round).hasSize(1);
            lost.get(0).badInput(STALE_DIGEST);
            ClusterEnsemble.Znode after = zk.read(root + "/config").orElseThrow();
            assertThat(after.version()).as("round %d: one write", round).isEqualTo(before.version() + 1);
            Object content = ((Map<?, ?>) storagesOf(after.text()).get("st0")).get("content");
            assertThat(content).as("round %d", round).isIn(List.of("images", "iso"), List.of("images", "backup"));
            node1.run("set", "st0", "--content", "images").ok(); // back to the start for the next round
        }
    }

    @Test
    void sixteenSetsFromTwoNodesAllLandAndTheZnodeAlwaysParses() throws Exception {
        int count = 16;
        String root = ClusterEnsemble.newRoot();
        Vsm node1 = zk.node(sandbox, "node1", root, 10).env("VSM_LOCK_TIMEOUT", ConcurrencyTest.LOCK_WAIT_SECONDS);
        Vsm node2 = zk.node(sandbox, "node2", root, 10).env("VSM_LOCK_TIMEOUT", ConcurrencyTest.LOCK_WAIT_SECONDS);
        ClusterEnsemble.seed(node1, storages(count));
        int seeded = zk.read(root + "/config").orElseThrow().version();

        // a Curator client reading the znode over and over while the sets run: it must always parse, whole
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<String> torn = new AtomicReference<>();
        Set<Integer> versions = new TreeSet<>();
        Thread reader = new Thread(
                () -> {
                    while (writing.get() && torn.get() == null) {
                        try {
                            ClusterEnsemble.Znode z = zk.read(root + "/config").orElseThrow();
                            if (storagesOf(z.text()).size() != count) {
                                torn.set(z.text());
                            }
                            versions.add(z.version());
                        } catch (Exception | AssertionError e) {
                            torn.set(e.toString());
                        }
                    }
                },
                "znode-reader");
        reader.start();
        List<Callable<Vsm.Result>> runs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Vsm node = i < count / 2 ? node1 : node2;
            String id = "st" + i;
            String onlyOn = "node" + (i % 3 + 1);
            runs.add(() -> node.run("set", id, "--content", "iso,images", "--nodes", onlyOn));
        }
        List<Vsm.Result> results;
        try {
            results = ConcurrencyTest.together(runs);
        } finally {
            writing.set(false);
            reader.join();
        }
        results.forEach(Vsm.Result::ok);
        assertThat(torn.get()).as("what the reader saw").isNull();
        System.out.printf(
                "ClusterConfigTest: %d parallel sets from 2 nodes, the reader saw %d versions of the znode%n",
                count, versions.size());

        ClusterEnsemble.Znode config = zk.read(root + "/config").orElseThrow();
        Map<String, Object> storages = storagesOf(config.text());
        for (int i = 0; i < count; i++) {
            Map<?, ?> st = (Map<?, ?>) storages.get("st" + i);
            assertThat(new TreeSet<Object>((List<?>) st.get("content")))
                    .as("st%d", i)
                    .containsExactly("images", "iso");
            assertThat(st.get("nodes")).as("st%d", i).isEqualTo(List.of("node" + (i % 3 + 1)));
        }
        assertThat(config.version()).as("one version per set").isEqualTo(seeded + count);
        assertThat(digest(node2)).isEqualTo(sha1(config.data()));
    }

    /** The {@code storages} mapping of the configuration text (fails when it does not parse to one). */
    static Map<String, Object> storagesOf(String yaml) {
        Object doc = new Load(LoadSettings.builder().build()).loadFromString(yaml);
        assertThat(doc).as("the configuration parses to a mapping: %s", yaml).isInstanceOf(Map.class);
        Object storages = ((Map<?, ?>) doc).get("storages");
        assertThat(storages).as("it holds storages: %s", yaml).isInstanceOf(Map.class);
        Map<String, Object> byId = new TreeMap<>();
        ((Map<?, ?>) storages).forEach((id, section) -> byId.put(String.valueOf(id), section));
        return byId;
    }
}
