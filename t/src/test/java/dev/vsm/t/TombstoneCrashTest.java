package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Vsm;
import dev.vsm.testing.SlowTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 between a removal's rename of a name to its private tombstone
 * ({@code .<name>.vsm-del-<node>-<pid>.<start>-<random>}) and the tombstone's removal: vsm stops
 * itself at the test pause point {@code tombstoned} and is killed there. {@code vsm cleanup}
 * removes the tombstone, its process gone: an image's, a subvol's (its tree by descriptor), and
 * the second name a killed {@code rename} ({@code HostFiles.move}) left of the renamed image, which
 * stays whole. A tombstone a writer of the directory replaced after cleanup judged it abandoned
 * is left.
 */
@SlowTest
class TombstoneCrashTest {
    private static final String DISK = "vm-100-disk-0.raw";

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path owner;
    private Vsm.Started started;

    @BeforeEach
    void setUp() {
        vsm = new Vsm(sandbox);
        vsm.run("status").ok();
        owner = vsm.defaultLocal().resolve("images/100");
    }

    @AfterEach
    void killLeftover() {
        if (started != null && started.process().isAlive()) {
            started.process().destroyForcibly(); // only the process this test started, by its handle
        }
    }

    /** Runs {@code args} as a vsm process that stops itself before {@code step}, and kills it there. */
    private void killedAt(String step, String... args) {
        started = pausedAt(step, args);
        started.process().destroyForcibly(); // SIGKILL, while it is stopped at the step
        assertThat(started.finish().exit()).isEqualTo(137);
    }

    private Vsm.Started pausedAt(String step, String... args) {
        Vsm.Started s = new Vsm(sandbox)
                .env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=" + step)
                .start(args);
        s.awaitPaused(120);
        return s;
    }

    private List<Path> tombstones() throws IOException {
        try (Stream<Path> entries = Files.list(owner)) {
            return entries.filter(p -> p.getFileName().toString().contains(".vsm-del-"))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void cleanupRemovesTheTombstonesOfFreesKilledBeforeTheirRemoval() throws Exception {
        Path canary = Files.writeString(sandbox.resolve("canary"), "CANARY\n");
        vsm.run("alloc", "local", "100", DISK, "1M", "--format", "raw").ok();
        String subvol = "subvol-100-disk-1.subvol";
        vsm.run("alloc", "local", "100", subvol, "0", "--format", "subvol").ok();
        Path tree = Files.createDirectories(owner.resolve(subvol).resolve("etc/deep"));
        Files.writeString(tree.resolve("file"), "in the subvol");
        Files.createSymbolicLink(tree.resolve("link"), canary); // removed, never followed
        Files.createSymbolicLink(owner.resolve(subvol).resolve("up"), sandbox);

        killedAt("tombstoned", "free", "local:100/" + DISK);
        killedAt("tombstoned", "free", "local:100/" + subvol);
        List<Path> left = tombstones();
        assertThat(left).as("what the killed frees left").hasSize(2);
        assertThat(vsm.run("list", "local").ok().out()).doesNotContain(DISK).doesNotContain(subvol);

        String out = vsm.run("cleanup", "local").ok().out();
        for (Path t : left) {
            assertThat(out).contains("images/100/" + t.getFileName());
        }
        try (Stream<Path> entries = Files.list(owner)) {
            assertThat(entries).isEmpty();
        }
        assertThat(Files.readString(canary)).isEqualTo("CANARY\n");
        assertThat(sandbox.resolve("canary")).exists();
        assertThat(vsm.run("cleanup", "local").ok().out()).startsWith("nothing to clean up");
    }

    @Test
    void cleanupRemovesTheSecondNameARenameKilledBeforeItsTombstonesRemovalLeft() throws Exception {
        vsm.run("alloc", "local", "100", DISK, "1M", "--format", "raw").ok();
        byte[] data = "the guest's data".getBytes(StandardCharsets.US_ASCII);
        try (var out = Files.newOutputStream(owner.resolve(DISK), java.nio.file.StandardOpenOption.WRITE)) {
            out.write(data);
        }
        killedAt("tombstoned", "rename", "local:100/" + DISK, "100", "--name", "vm-100-disk-1.raw");
        Path renamed = owner.resolve("vm-100-disk-1.raw");
        List<Path> left = tombstones();
        assertThat(left).hasSize(1);
        assertThat(Files.getAttribute(renamed, "unix:nlink"))
                .as("the tombstone is a second name")
                .isEqualTo(2);

        assertThat(vsm.run("cleanup", "local").ok().out())
                .contains("images/100/" + left.get(0).getFileName());
        assertThat(tombstones()).isEmpty();
        assertThat(Files.getAttribute(renamed, "unix:nlink")).isEqualTo(1);
        assertThat(Files.size(renamed)).isEqualTo(1024 * 1024);
        assertThat(Arrays.copyOf(Files.readAllBytes(renamed), data.length)).isEqualTo(data);
        assertThat(vsm.run("list", "local").ok().out())
                .contains("local:100/vm-100-disk-1.raw")
                .doesNotContain(DISK);
    }

    /**
     * {@code vsm cleanup} judges a tombstone abandoned under the storage lock and removes it after
     * releasing it; in between (cleanup stopped at {@code remove}) a writer of the directory puts
     * another file under the tombstone's name. The removal checks that the name still holds the
     * file judged (device, inode, birth time), and leaves the writer's.
     */
    @Test
    void aTombstoneReplacedAfterCleanupJudgedItIsLeft() throws Exception {
        vsm.run("alloc", "local", "100", DISK, "1M", "--format", "raw").ok();
        killedAt("tombstoned", "free", "local:100/" + DISK);
        Path tombstone = tombstones().get(0);

        started = pausedAt("remove", "cleanup", "local");
        Files.move(tombstone, owner.resolve("aside"));
        Files.writeString(tombstone, "a writer's file");
        signal("-CONT", started.process().pid());
        Vsm.Result r = started.finish();
        assertThat(r.exit()).as("cleanup's exit; stderr: %s", r.err()).isEqualTo(1);
        assertThat(r.err()).contains("is no longer the file this command found");
        assertThat(Files.readString(tombstone)).isEqualTo("a writer's file");
        assertThat(Files.exists(owner.resolve("aside"), LinkOption.NOFOLLOW_LINKS))
                .isTrue();
    }

    private static void signal(String signal, long pid) throws Exception {
        new ProcessBuilder("kill", signal, Long.toString(pid))
                .inheritIO()
                .start()
                .waitFor(30, TimeUnit.SECONDS);
    }
}
