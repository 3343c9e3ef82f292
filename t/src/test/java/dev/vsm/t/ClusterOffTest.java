package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.ClusterEnsemble;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.HostTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without a {@code cluster:} block vsm runs as before and loads no ZooKeeper or Curator class
 * strace shows which jar files the JVM opens. With the block, the control, it opens them.
 */
class ClusterOffTest {
    private static final Pattern OPENED_JAR =
            Pattern.compile("^\\d+\\s+open(?:at)?\\(.*?\"([^\"]+\\.jar)\".*\\)\\s+=\\s+\\d+.*$");

    @RegisterExtension
    static final ClusterEnsemble zk = new ClusterEnsemble();

    @TempDir
    Path sandbox;

    @Test
    void withoutAClusterBlockNoZooKeeperOrCuratorJarIsOpened() throws Exception {
        Vsm vsm = new Vsm(sandbox.resolve("plain"))
                .writeConfig("storages:\n  st:\n    type: dir\n    path: " + sandbox.resolve("st") + "\n");
        List<String> jars = openedJars(vsm, "status");
        assertThat(jars)
                .as("jars opened by 'vsm status'")
                .anyMatch(j -> j.endsWith("vsm-cli.jar") || j.contains("vsm-framework"))
                .noneMatch(j -> j.contains("zookeeper") || j.contains("curator") || j.contains("/lib/cluster/"));
    }

    @Test
    void withAClusterBlockTheClusterJarsAreOpened() throws Exception {
        Vsm node = zk.node(sandbox, "node1", ClusterEnsemble.newRoot(), 10);
        ClusterEnsemble.seed(node, "storages:\n  st:\n    type: dir\n    path: " + sandbox.resolve("st") + "\n");
        assertThat(openedJars(node, "status"))
                .anyMatch(j -> j.contains("zookeeper"))
                .anyMatch(j -> j.contains("curator"));
    }

    /** The jar files vsm opened while it ran {@code args} (strace -f). */
    private List<String> openedJars(Vsm vsm, String... args) throws Exception {
        HostTools.require("strace shows which jars vsm opens", "/usr/bin/strace");
        Path log = sandbox.resolve("strace-" + System.nanoTime() + ".log");
        List<String> argv = new ArrayList<>(List.of(
                "/usr/bin/strace",
                "-f",
                "-qq",
                "-o",
                log.toString(),
                "-e",
                "trace=open,openat",
                Vsm.LAUNCHER.toString()));
        argv.addAll(List.of(args));
        HostTools.Result r = HostTools.run(vsm.environment(), argv.toArray(String[]::new));
        assertThat(r.exit())
                .as("vsm %s under strace: %s", String.join(" ", args), r.err())
                .isZero();
        List<String> jars = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            Matcher m = OPENED_JAR.matcher(line);
            if (m.matches()) {
                jars.add(m.group(1));
            }
        }
        Files.delete(log);
        return jars;
    }
}
