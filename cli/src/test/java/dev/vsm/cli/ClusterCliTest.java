package dev.vsm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vsm.testing.FreePorts;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cluster commands and cluster mode end to end in-process, against a real (in-process) ZooKeeper server. */
class ClusterCliTest {
    @TempDir
    Path tmp;

    TestingServer server;
    Path config;
    String out;
    String err;

    @BeforeEach
    void start() throws Exception {
        // its data directory, and the configuration file ZooKeeper writes beside it, inside tmp (not /tmp)
        Path data = Files.createDirectories(tmp.resolve("zookeeper/data"));
        server = new TestingServer(new InstanceSpec(data.toFile(), FreePorts.next(), -1, -1, true, -1), true);
        config = tmp.resolve("storage.yaml");
        Files.writeString(
                config,
                "cluster:\n  zookeeper: " + server.getConnectString() + "\n  node: node1\n  root: /t"
                        + ProcessHandle.current().pid() + "\n  session-timeout: 2\n");
    }

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.close();
        }
    }

    private int run(String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        String[] all = new String[args.length + 1];
        all[0] = "--config=" + config;
        System.arraycopy(args, 0, all, 1, args.length);
        int status = Main.run(
                all,
                new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8));
        out = o.toString(StandardCharsets.UTF_8);
        err = e.toString(StandardCharsets.UTF_8);
        return status;
    }

    private Path seed() throws IOException {
        Path seed = tmp.resolve("seed.yaml");
        Files.writeString(
                seed,
                "storages:\n  shared1:\n    type: dir\n    path: " + tmp.resolve("s1") + "\n    shared: true\n"
                        + "  elsewhere:\n    type: dir\n    path: " + tmp.resolve("s2") + "\n    nodes: node2\n");
        return seed;
    }

    @Test
    void withoutABlockEveryClusterCommandSaysSo() throws IOException {
        Files.writeString(config, "storages:\n  a:\n    type: dir\n    path: " + tmp.resolve("a") + "\n");
        for (String[] args : new String[][] {
            {"cluster", "export"}, {"cluster", "status"}, {"cluster", "init", "--from", config.toString()}
        }) {
            assertThat(run(args)).as(String.join(" ", args)).isEqualTo(2);
            assertThat(err).isEqualTo("not in cluster mode: no 'cluster' block in " + config + "\n");
        }
    }

    @Test
    void aBadBlockIsBadInputWithFileAndLine() throws IOException {
        Files.writeString(config, "cluster:\n  zookeeper: nowhere\n  node: node1\n");
        assertThat(run("status")).isEqualTo(2);
        assertThat(err)
                .isEqualTo(
                        config
                                + ":2: cluster: zookeeper: must be the ZooKeeper servers as host:port[,host:port...] (got 'nowhere')\n");
    }

    @Test
    void initStatusEditsAndLossOfQuorum() throws Exception {
        Path secret = tmp.resolve("cluster.secret");
        String noSecret = "cluster secret file '" + secret
                + "' does not exist: run 'vsm cluster init' on one node and copy the file it creates to every node"
                + " (root's, mode 0600)\n";
        assertThat(run("status")).isEqualTo(2);
        assertThat(err).isEqualTo(noSecret);
        assertThat(run("add", "dir", "first", "--path", tmp.resolve("s0").toString()))
                .isEqualTo(2);
        assertThat(err).isEqualTo(noSecret);
        assertThat(run("cluster", "init")).isEqualTo(2);
        assertThat(err)
                .isEqualTo("missing --from FILE: give the storage.yaml whose storages the cluster gets (--force alone"
                        + " makes the stored configuration's tree vsm's alone)\n");

        assertThat(run("cluster", "init", "--from", tmp.resolve("missing.yaml").toString()))
                .isEqualTo(2);
        assertThat(err)
                .isEqualTo("file '" + tmp.resolve("missing.yaml")
                        + "' does not exist: give the storage.yaml whose storages the cluster gets\n");
        Files.writeString(tmp.resolve("bad.yaml"), "storages:\n  aa:\n    type: dir\n");
        assertThat(run("cluster", "init", "--from", tmp.resolve("bad.yaml").toString()))
                .isEqualTo(2);
        assertThat(err).startsWith(tmp.resolve("bad.yaml") + ":2: storage 'aa': ");
        assertThat(run("cluster", "init", "--dry-run", "--from", seed().toString()))
                .as(err)
                .isZero();
        assertThat(out)
                .matches("\\+ create " + secret + " \\(mode 0600, a new random secret\\)\n"
                        + "\\+ zookeeper create /t\\d+/config\n");
        assertThat(secret).doesNotExist();
        assertThat(run("cluster", "init", "--from", seed().toString())).as(err).isZero();
        assertThat(out)
                .matches("stored 2 storage\\(s\\) from .*seed.yaml at /t\\d+/config\n"
                        + "created the cluster secret " + secret + ": copy it to the same path on every node, root's"
                        + " with mode 0600 \\(scp -p\\)\n");
        assertThat(secret).exists();
        assertThat(run("cluster", "export")).isZero();
        assertThat(out).contains("shared1:", "shared: true").doesNotContain("cluster:");
        assertThat(run("cluster", "init", "--from", seed().toString())).isEqualTo(2);
        assertThat(err).contains("cluster configuration already exists at", "(version 0): use --force to replace it");
        assertThat(run("cluster", "init", "--force")).as(err).isZero();
        assertThat(out).matches("/t\\d+ is vsm's alone\n");
        assertThat(run("cluster", "export")).isZero();
        assertThat(out).contains("shared1:");

        assertThat(run("status")).as(err).isZero();
        assertThat(out).containsPattern("elsewhere\\s+dir\\s+disabled").containsPattern("shared1\\s+dir\\s+active");
        assertThat(run("alloc", "elsewhere", "100", "vm-100-disk-0.raw", "1M")).isEqualTo(2);
        assertThat(err).isEqualTo("storage 'elsewhere' is not available on node 'node1'\n");
        assertThat(run("alloc", "shared1", "100", "vm-100-disk-0.raw", "1M"))
                .as(err)
                .isZero();
        assertThat(run("add", "dir", "third", "--path", tmp.resolve("s3").toString()))
                .as(err)
                .isZero();

        assertThat(run("cluster", "status", "--output-format", "json")).as(err).isZero();
        JsonNode status = new ObjectMapper().readTree(out);
        assertThat(status.get("session").asText()).isEqualTo("CONNECTED");
        assertThat(status.get("node").asText()).isEqualTo("node1");
        assertThat(status.get("config_version").asInt()).isEqualTo(1);
        assertThat(status.get("nodes").get(0).get("name").asText()).isEqualTo("node1");

        server.stop();
        assertThat(run("add", "dir", "fourth", "--path", tmp.resolve("s4").toString()))
                .isEqualTo(1);
        assertThat(err)
                .isEqualTo("no quorum! (ZooKeeper " + server.getConnectString() + " not reachable): nothing changed\n");
        assertThat(run("status")).isZero();
        assertThat(err)
                .startsWith("warning: no quorum: using the cluster configuration cached at ")
                .hasLineCount(1);
        assertThat(out).contains("third").doesNotContain("fourth");
    }
}
