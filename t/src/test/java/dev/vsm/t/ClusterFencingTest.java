package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.ClusterEnsemble;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import dev.vsm.testing.SlowTest;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A vsm that stalls (SIGSTOP) between its last check and a destructive step, inside the storage's
 * cluster lock, past its ZooKeeper session: another node gets the lock, frees the volume and
 * makes a new one under the same name; then the stalled vsm runs on (SIGCONT). The storage
 * arbitrates: the other node's volume survives, and the stalled vsm fails with one line. The
 * stop lands at the step through the test-only pause point {@code vsm.test.pause-before}
 * (dev.vsm.env.TestPause), set through {@code VSM_JAVA_OPTS}.
 */
@SlowTest
class ClusterFencingTest {
    private static final int SESSION_SECONDS = 2;

    @RegisterExtension
    static final ClusterEnsemble zk = new ClusterEnsemble();

    @TempDir
    Path sandbox;

    private final List<ProcessHandle> started = new ArrayList<>();

    @AfterEach
    void resumeAndKillLeftovers() throws Exception {
        for (ProcessHandle p : started) { // only what this test started, by pid
            signal("-CONT", p.pid());
            p.destroyForcibly();
        }
    }

    private Vsm node(String root, String name) {
        return zk.node(sandbox, name, root, SESSION_SECONDS).env("VSM_LOCK_TIMEOUT", "60");
    }

    private Path sharedDir(Vsm seeder) {
        Path store = sandbox.resolve("shared-store");
        ClusterEnsemble.seed(seeder, """
                storages:
                  shared:
                    type: dir
                    path: %s
                    content: [images]
                    shared: true
                """.formatted(store));
        return store;
    }

    /** A free stalled just before it removes the file: the file made again under the name stays. */
    @Test
    void aStalledFreeLeavesTheVolumeAnotherNodeMadeUnderTheSameName() throws Exception {
        String root = ClusterEnsemble.newRoot();
        Vsm stalled = node(root, "node1");
        Vsm other = node(root, "node2");
        Path image = sharedDir(other).resolve("images/100/vm-100-disk-0.raw");
        other.run("alloc", "shared", "100", "vm-100-disk-0.raw", "1M").ok();

        Vsm.Started free = stalled.env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=remove")
                .start("free", "shared:100/vm-100-disk-0.raw");
        awaitStopped(free);
        other.run("free", "shared:100/vm-100-disk-0.raw").ok(); // waits until node1's session expired
        other.run("alloc", "shared", "100", "vm-100-disk-0.raw", "2M").ok();
        BasicFileAttributes made = attributes(image);

        Vsm.Result r = resume(free);
        assertThat(r.exit()).as("node1: %s", r).isEqualTo(1);
        assertThat(r.err().strip())
                .doesNotContain("\n")
                .isEqualTo("'" + image + "' is no longer the file this command found (replaced meanwhile by "
                        + "another node or process?): left it alone");
        assertThat(attributes(image).fileKey()).isEqualTo(made.fileKey());
        assertThat(Files.size(image)).isEqualTo(2L << 20);
        assertThat(names(image.getParent())).containsExactly("vm-100-disk-0.raw");
    }

    /** An alloc stalled just before it publishes its image: the image another node made under the name stays. */
    @Test
    void aStalledAllocNeverReplacesTheImageAnotherNodeMadeUnderTheName() throws Exception {
        String root = ClusterEnsemble.newRoot();
        Vsm stalled = node(root, "node1");
        Vsm other = node(root, "node2");
        Path image = sharedDir(other).resolve("images/100/vm-100-disk-0.raw");

        Vsm.Started alloc = stalled.env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=move")
                .start("alloc", "shared", "100", "vm-100-disk-0.raw", "1M");
        awaitStopped(alloc);
        other.run("alloc", "shared", "100", "vm-100-disk-0.raw", "2M").ok();
        BasicFileAttributes made = attributes(image);

        Vsm.Result r = resume(alloc);
        assertThat(r.exit()).as("node1: %s", r).isEqualTo(1);
        assertThat(r.err().strip()).doesNotContain("\n").endsWith("/vm-100-disk-0.raw' failed - target exists");
        assertThat(attributes(image).fileKey()).isEqualTo(made.fileKey());
        assertThat(Files.size(image)).isEqualTo(2L << 20);
        assertThat(names(image.getParent()))
                .as("node1's temporary file went as well")
                .containsExactly("vm-100-disk-0.raw");
    }

    /** An LVM free stalled just before lvremove: the LV made again under the name stays (selected by UUID). */
    @RootTest
    @Test
    void aStalledLvremoveLeavesTheLvAnotherNodeMadeUnderTheSameName() throws Exception {
        try (LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64).create()) {
            String root = ClusterEnsemble.newRoot();
            Vsm stalled = node(root, "node1").env(vg.environment());
            Vsm other = node(root, "node2").env(vg.environment());
            ClusterEnsemble.seed(other, """
                    storages:
                      san:
                        type: lvm
                        vgname: %s
                        shared: true
                    """.formatted(vg.name()));
            other.run("alloc", "san", "100", "vm-100-disk-0", "4M").ok();
            String seen = vg.uuid("vm-100-disk-0");

            Vsm.Started free = stalled.env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=lvremove")
                    .start("free", "san:vm-100-disk-0");
            awaitStopped(free);
            other.run("free", "san:vm-100-disk-0").ok();
            other.run("alloc", "san", "100", "vm-100-disk-0", "8M").ok();
            String made = vg.uuid("vm-100-disk-0");
            assertThat(made).isNotEqualTo(seen);

            Vsm.Result r = resume(free);
            assertThat(r.exit()).as("node1: %s", r).isEqualTo(1);
            assertThat(r.err().strip())
                    .doesNotContain("\n")
                    .isEqualTo("lvremove '" + vg.name() + "/vm-100-disk-0' error: the LV of that name is no longer "
                            + "the one found (UUID " + seen + "; freed and made again meanwhile by another node?): "
                            + "left it alone");
            assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
            assertThat(vg.uuid("vm-100-disk-0")).isEqualTo(made);
            assertThat(vg.lvSize("vm-100-disk-0")).contains(8L << 20);
        }
    }

    /** Waits until the process stopped itself at the pause point. */
    private void awaitStopped(Vsm.Started s) {
        started.add(s.process().toHandle());
        s.awaitPaused(60);
    }

    private static Vsm.Result resume(Vsm.Started s) throws Exception {
        signal("-CONT", s.process().pid());
        return s.finish(60);
    }

    private static BasicFileAttributes attributes(Path file) throws Exception {
        return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }

    private static List<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** kill(1) with a signal, for a process this test started. */
    private static void signal(String signal, long pid) throws Exception {
        new ProcessBuilder("kill", signal, Long.toString(pid))
                .inheritIO()
                .start()
                .waitFor(30, TimeUnit.SECONDS);
    }
}
