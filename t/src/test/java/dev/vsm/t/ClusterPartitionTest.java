package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.ClusterEnsemble;
import dev.vsm.t.support.NetworkNamespace;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import dev.vsm.testing.SlowTest;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition, not only a freeze: node1 runs in a network namespace of its own
 * ({@link NetworkNamespace}: a veth pair to the host, where three real ZooKeeper servers run) and
 * is cut off the network while it holds a shared VG's cluster lock, stopped between its last
 * check and {@code lvremove}. Its session expires because the servers no longer hear it; node2,
 * on the host, takes the lock, frees the volume and makes a new one under the same name. node1
 * then runs on, still cut off: it must not remove node2's LV, and must say that it failed (exit 1,
 * one line) without hanging on the ensemble it cannot reach. Once the network is back, node1
 * works again with a new session. ({@link ClusterFencingTest} loses the session by the freeze
 * alone.)
 */
@RootTest
@SlowTest
class ClusterPartitionTest {
    private static final int SESSION_SECONDS = 2;

    @RegisterExtension
    static final ClusterEnsemble zk = new ClusterEnsemble();

    @TempDir
    Path sandbox;

    @Test
    void aNodeCutOffInsideItsLockNeverRemovesTheLvAnotherNodeMadeMeanwhile() throws Exception {
        String root = ClusterEnsemble.newRoot();
        try (LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64).create();
                NetworkNamespace net = NetworkNamespace.create()) {
            Vsm other = zk.node(sandbox, "node2", root, SESSION_SECONDS)
                    .env("VSM_LOCK_TIMEOUT", "60")
                    .env(vg.environment())
                    .processes();
            Vsm cut = zk.node(sandbox, "node1", root, SESSION_SECONDS, net.forward(zk.connectString()))
                    .env(vg.environment());
            cut.launcher(net.launcher(cut.sandbox()));
            ClusterEnsemble.seed(other, """
                    storages:
                      san:
                        type: lvm
                        vgname: %s
                        shared: true
                    """.formatted(vg.name()));
            cut.run("list", "san").ok(); // node1 reaches the ensemble through its namespace
            other.run("alloc", "san", "100", "vm-100-disk-0", "4M").ok();
            String seen = vg.uuid("vm-100-disk-0");

            Vsm.Started free =
                    cut.env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=lvremove").start("free", "san:vm-100-disk-0");
            try {
                free.awaitPaused(60);
                net.cut();
                other.run("free", "san:vm-100-disk-0").ok(); // waits until node1's session expired
                other.run("alloc", "san", "100", "vm-100-disk-0", "8M").ok();
                String made = vg.uuid("vm-100-disk-0");
                assertThat(made).isNotEqualTo(seen);

                long resumed = System.nanoTime();
                signal("-CONT", free.process().pid()); // runs on, still cut off
                Vsm.Result r = free.finish(60);
                System.out.printf(
                        "the cut-off node ended %d ms after SIGCONT%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumed));
                assertThat(r.exit()).as("node1: %s", r).isEqualTo(1);
                assertThat(r.out()).doesNotContain("Removed");
                assertThat(r.err().strip())
                        .doesNotContain("\n")
                        .isEqualTo("lvremove '" + vg.name() + "/vm-100-disk-0' error: the LV of that name is no "
                                + "longer the one found (UUID " + seen + "; freed and made again meanwhile by another "
                                + "node?): left it alone");
                assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
                assertThat(vg.uuid("vm-100-disk-0")).isEqualTo(made);
                assertThat(vg.lvSize("vm-100-disk-0")).contains(8L << 20);
            } finally {
                signal("-CONT", free.process().pid());
                free.process().destroyForcibly();
            }

            net.heal();
            cut.env("VSM_JAVA_OPTS", "")
                    .run("alloc", "san", "100", "vm-100-disk-1", "4M")
                    .ok();
            assertThat(vg.lvNames()).containsExactly("vm-100-disk-0", "vm-100-disk-1");
        }
    }

    /** kill(1) with a signal, for a process this test started. */
    private static void signal(String signal, long pid) throws Exception {
        new ProcessBuilder("kill", signal, Long.toString(pid))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start()
                .waitFor(30, TimeUnit.SECONDS);
    }
}
