package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.ClusterEnsemble;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.SlowTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cluster mode without quorum: two of the three ZooKeeper servers stop. Every
 * changing command fails with one {@code no quorum!} line and changes nothing; reading commands
 * go on from the configuration cached locally, with one warning; once the servers are back,
 * work resumes.
 */
@SlowTest
class ClusterQuorumTest {
    @RegisterExtension
    static final ClusterEnsemble zk = new ClusterEnsemble();

    @TempDir
    Path sandbox;

    @Test
    void withoutQuorumChangesFailAndChangeNothingReadsUseTheCache() throws Exception {
        String root = ClusterEnsemble.newRoot();
        Path store = sandbox.resolve("shared-store");
        Vsm node1 = zk.node(sandbox, "node1", root, 4);
        Vsm fresh = zk.node(sandbox, "node3", root, 4); // never talks to ZooKeeper before the servers stop: no cache
        ClusterEnsemble.seed(node1, """
                storages:
                  shared:
                    type: dir
                    path: %s
                    content: [images]
                    shared: true
                """.formatted(store));
        String volid =
                node1.run("alloc", "shared", "100", "", "1M").ok().out().replaceAll("(?s).*'(shared:[^']+)'.*", "$1");
        node1.run("list", "shared").ok(); // a read from ZooKeeper: the configuration is now cached
        ClusterEnsemble.Znode config = zk.read(root + "/config").orElseThrow();
        Map<String, String> before = Tree.snapshot(store);
        String newSeed = sandbox.resolve("other.yaml").toString();
        Files.writeString(
                Path.of(newSeed), "storages:\n  other:\n    type: dir\n    path: " + sandbox.resolve("other") + "\n");

        zk.stopServers(2);
        try {
            for (String[] change : new String[][] {
                {"alloc", "shared", "100", "", "1M"},
                {"set", "shared", "--content", "images,iso"},
                {"free", volid},
                {"add", "dir", "more", "--path", sandbox.resolve("more").toString()},
                {"cluster", "init", "--from", newSeed, "--force"}
            }) {
                long start = System.nanoTime();
                Vsm.Result r = node1.run(change);
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.printf(
                        "ClusterQuorumTest: '%s' without quorum failed after %d ms%n",
                        String.join(" ", change), millis);
                assertThat(r.exit())
                        .as("%s: stdout %s stderr %s", String.join(" ", change), r.out(), r.err())
                        .isEqualTo(1);
                assertThat(r.err().strip())
                        .as(String.join(" ", change))
                        .startsWith("no quorum!")
                        .doesNotContain("\n");
                assertThat(Tree.snapshot(store))
                        .as("%s changed the storage", String.join(" ", change))
                        .isEqualTo(before);
            }

            for (String[] read : new String[][] {
                {"status"}, {"list", "shared"}, {"path", volid}, {"cluster", "export"}, {"cluster", "status"}
            }) {
                Vsm.Result r = node1.run(read);
                assertThat(r.exit())
                        .as("%s: stderr %s", String.join(" ", read), r.err())
                        .isZero();
                assertThat(r.err().strip())
                        .as(String.join(" ", read))
                        .startsWith("warning: no quorum: using the cluster configuration cached at ")
                        .doesNotContain("\n");
            }
            assertThat(node1.run("list", "shared").ok().out()).contains(volid);
            assertThat(node1.run("cluster", "export").ok().out()).isEqualTo(config.text());
            assertThat(node1.run("status").ok().out()).contains("shared");

            Vsm.Result noCache = fresh.run("status");
            assertThat(noCache.exit()).as("stderr: %s", noCache.err()).isEqualTo(1);
            assertThat(noCache.err().strip())
                    .startsWith("no quorum!")
                    .contains("and no cached configuration")
                    .doesNotContain("\n");
        } finally {
            zk.restartStopped();
        }

        ClusterEnsemble.Znode now = zk.read(root + "/config").orElseThrow();
        assertThat(now.text())
                .as("the configuration znode after the failed changes")
                .isEqualTo(config.text());
        assertThat(now.version()).isEqualTo(config.version());
        assertThat(Tree.snapshot(store)).isEqualTo(before);

        // the servers are back: work resumes, on both nodes
        Vsm.Result status = node1.run("status");
        assertThat(status.exit()).as("stderr: %s", status.err()).isZero();
        assertThat(status.err()).doesNotContain("no quorum");
        node1.run("set", "shared", "--content", "images,iso").ok();
        assertThat(zk.read(root + "/config").orElseThrow().text()).contains("iso");
        node1.run("alloc", "shared", "100", "", "1M").ok();
        node1.run("free", volid).ok();
        fresh.run("status").ok();
        assertThat(fresh.run("list", "shared").ok().out()).doesNotContain(volid).contains("shared:100/vm-100-disk-");
    }
}
