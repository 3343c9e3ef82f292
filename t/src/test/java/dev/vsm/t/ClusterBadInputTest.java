package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.ClusterEnsemble;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input in cluster mode: a bad {@code cluster:} block, a local
 * {@code storages:} key, {@code vsm cluster} outside cluster mode, an uninitialised or an already
 * initialised root, a storage not available on this node. Each is one line on stderr, exit 2, and
 * nothing changed: not the files, not ZooKeeper.
 */
class ClusterBadInputTest {
    @RegisterExtension
    static final ClusterEnsemble zk = new ClusterEnsemble();

    @TempDir
    Path sandbox;

    /** The cluster block with one line replaced (1 cluster:, 2 zookeeper, 3 node, 4 root, 5 session-timeout) or removed (null). */
    private String block(String root, int line, String replacement) {
        String[] lines = ClusterEnsemble.clusterBlock(zk.connectString(), "node1", root, 10)
                .split("\n");
        StringBuilder yaml = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            if (i + 1 != line) {
                yaml.append(lines[i]).append('\n');
            } else if (replacement != null) {
                yaml.append("  ").append(replacement).append('\n');
            }
        }
        return yaml.toString();
    }

    /** Every command refuses the config file: exit 2, one line naming the file and the key, nothing changed anywhere. */
    private void refused(String yaml, String... expectedParts) throws Exception {
        String root = rootIn(yaml);
        Vsm vsm = new Vsm(Files.createTempDirectory(sandbox, "node")).writeConfig(yaml);
        Map<String, String> before = Tree.snapshot(vsm.sandbox());
        for (String[] args : new String[][] {{"status"}, {"alloc", "local", "100", "", "1M"}, {"cluster", "status"}}) {
            Vsm.Result r = vsm.run(args).badInput(vsm.config() + ":");
            for (String part : expectedParts) {
                assertThat(r.err()).as(String.join(" ", args)).contains(part);
            }
        }
        assertThat(Tree.snapshot(vsm.sandbox())).isEqualTo(before);
        if (root != null) {
            assertThat(zk.read(root)).as("ZooKeeper untouched under %s", root).isEmpty();
        }
    }

    private static String rootIn(String yaml) {
        return yaml.lines()
                .filter(l -> l.startsWith("  root: /"))
                .map(l -> l.substring("  root: ".length()))
                .findFirst()
                .orElse(null);
    }

    @Test
    void aBadClusterBlockIsRefusedWithFileLineAndKey() throws Exception {
        String root = ClusterEnsemble.newRoot();
        refused(block(root, 2, "zookeeper: '127.0.0.1:notaport'"), ":2: cluster: zookeeper: ");
        refused(block(root, 2, "zookeeper: ''"), ":2: cluster: zookeeper: ");
        refused(block(root, 2, "zookeeper: [1, 2]"), ":2: cluster: zookeeper: ");
        refused(block(root, 2, null), "cluster: zookeeper: ");
        refused(block(root, 3, null), "cluster: node: ");
        refused(block(root, 3, "node: 'two words'"), ":3: cluster: node: ");
        refused(block(root, 4, "root: vsm"), ":4: cluster: root: ");
        refused(block(root, 5, "session-timeout: 1"), ":5: cluster: session-timeout: ");
        refused(block(root, 5, "session-timeout: 601"), ":5: cluster: session-timeout: ");
        refused(block(root, 5, "session-timeout: ten"), ":5: cluster: session-timeout: ");
        refused("cluster: yes\n", ":1: cluster: ");
        refused(block(root, 0, null) + "  secret-file: ''\n", ":6: cluster: secret-file: must be the path of a file");
        refused(block(root, 0, null) + "  secret-file: [a]\n", ":6: cluster: secret-file: ");
    }

    @Test
    void localStoragesAreRefusedInClusterMode() throws Exception {
        String root = ClusterEnsemble.newRoot();
        String yaml = block(root, 0, null) + "storages:\n  local:\n    type: dir\n    path: " + sandbox.resolve("local")
                + "\n";
        refused(
                yaml,
                ":6: storages: not used in cluster mode: the storage configuration is in ZooKeeper "
                        + "(seed it with 'vsm cluster init --from FILE')");
    }

    @Test
    void clusterCommandsOutsideClusterModeAreRefused() {
        Vsm vsm = new Vsm(sandbox)
                .writeConfig("storages:\n  local:\n    type: dir\n    path: " + sandbox.resolve("local") + "\n");
        Map<String, String> before = Tree.snapshot(sandbox);
        for (String[] args : new String[][] {
            {"cluster", "status"},
            {"cluster", "export"},
            {"cluster", "init", "--from", vsm.config().toString()}
        }) {
            vsm.run(args).badInput("not in cluster mode: no 'cluster' block in " + vsm.config());
        }
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
    }

    @Test
    void anUninitialisedRootIsRefused() throws Exception {
        String root = ClusterEnsemble.newRoot();
        Vsm node = zk.node(sandbox, "node1", root, 10);
        for (String[] args : new String[][] {
            {"status"}, {"list", "local"}, {"alloc", "local", "100", "", "1M"}, {"cluster", "export"}
        }) {
            node.run(args)
                    .badInput("cluster configuration not found at " + root
                            + "/config: seed it with 'vsm cluster init --from FILE'");
        }
        assertThat(zk.read(root + "/config")).isEmpty();
    }

    @Test
    void initTwiceNeedsForceAndABadSeedFileIsRefused() throws Exception {
        String root = ClusterEnsemble.newRoot();
        Vsm node = zk.node(sandbox, "node1", root, 10);
        Path seed = sandbox.resolve("seed.yaml");
        Path bad = sandbox.resolve("bad.yaml");
        Files.writeString(bad, "storages:\n  aa:\n    type: dir\n    path: /srv/aa\n    content: 7\n");
        node.run("cluster", "init", "--from", bad.toString()).badInput(bad + ":5: storage 'aa': content");
        assertThat(zk.read(root + "/config")).as("after a bad seed file").isEmpty();

        Files.writeString(seed, "storages:\n  aa:\n    type: dir\n    path: " + sandbox.resolve("aa") + "\n");
        Vsm.Result dry = node.run("cluster", "init", "--from", seed.toString(), "--dry-run")
                .ok();
        assertThat(dry.out()).startsWith("+ ");
        assertThat(zk.read(root + "/config")).as("after --dry-run").isEmpty();
        node.run("cluster", "init", "--from", seed.toString()).ok();
        ClusterEnsemble.Znode first = zk.read(root + "/config").orElseThrow();
        assertThat(ClusterConfigTest.storagesOf(first.text()).keySet()).containsExactly("aa");

        Files.writeString(seed, "storages:\n  bb:\n    type: dir\n    path: " + sandbox.resolve("bb") + "\n");
        node.run("cluster", "init", "--from", seed.toString())
                .badInput("cluster configuration already exists at " + root + "/config (version " + first.version()
                        + "): use --force to replace it");
        ClusterEnsemble.Znode unchanged = zk.read(root + "/config").orElseThrow();
        assertThat(unchanged.text()).isEqualTo(first.text());
        assertThat(unchanged.version()).isEqualTo(first.version());

        node.run("cluster", "init", "--from", seed.toString(), "--force").ok();
        assertThat(ClusterConfigTest.storagesOf(
                                zk.read(root + "/config").orElseThrow().text())
                        .keySet())
                .containsExactly("bb");
        assertThat(ClusterConfigTest.storagesOf(
                                node.run("cluster", "export").ok().out())
                        .keySet())
                .containsExactly("bb");
    }

    @Test
    void theClusterNodeNameDecidesWhereAStorageIsAvailable() throws Exception {
        String root = ClusterEnsemble.newRoot();
        Vsm node1 = zk.node(sandbox, "node1", root, 10);
        Vsm node2 = zk.node(sandbox, "node2", root, 10).env("VSM_NODE", "node1"); // cluster.node wins over $VSM_NODE
        ClusterEnsemble.seed(
                node1,
                "storages:\n  only1:\n    type: dir\n    path: " + sandbox.resolve("only1")
                        + "\n    content: [images]\n    nodes: [node1]\n");
        node1.run("alloc", "only1", "100", "", "1M").ok();
        Map<String, String> before = Tree.snapshot(sandbox.resolve("only1"));
        node2.run("alloc", "only1", "100", "", "1M").badInput("storage 'only1' is not available on node 'node2'");
        assertThat(Tree.snapshot(sandbox.resolve("only1"))).isEqualTo(before);
        var status = node2.run("status", "--output-format", "json").ok().json();
        assertThat(status.get(0).get("storage").asText()).isEqualTo("only1");
        assertThat(node2.run("status").ok().out()).containsPattern("only1\\s+dir\\s+disabled");
    }
}
