package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Children;
import dev.vsm.t.support.Cleanup;
import dev.vsm.t.support.ScratchDisk;
import dev.vsm.t.support.ScriptRun;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.RootTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm wipe --device} on real loop devices filled with random data: every byte reads back
 * zero afterwards, with blkdiscard and with the cstream fallback (forced by a fake sysfs); dry
 * runs and refusals change nothing; SIGTERM stops the wipe and its child.
 */
@RootTest
class WipeTest {
    private static final long MIB = 1L << 20;

    @TempDir
    Path sandbox;

    @RegisterExtension
    final Cleanup cleanup = new Cleanup();

    private Vsm vsm;

    @BeforeEach
    void needs() {
        ScratchDisk.requireRootLoopAndTools(
                "losetup", "blkdiscard", "cstream", "dd", "blockdev", "mkfs.ext4", "script");
        vsm = new Vsm(sandbox);
    }

    private ScratchDisk disk(long bytes) {
        return cleanup.add(ScratchDisk.create(sandbox, bytes));
    }

    /** A fake sysfs for the disk: its write_zeroes_max_bytes, and its real size and write counter. */
    private Path fakeSysfs(ScratchDisk disk, long writeZeroesMaxBytes) throws IOException {
        String name = disk.device().getFileName().toString();
        Path sys = sandbox.resolve("sys");
        Files.createDirectories(sys.resolve("block").resolve(name).resolve("queue"));
        Files.writeString(
                sys.resolve("block").resolve(name).resolve("queue/write_zeroes_max_bytes"), writeZeroesMaxBytes + "\n");
        Path entry = Files.createDirectories(sys.resolve("class/block").resolve(name));
        Path real = Path.of("/sys/class/block").resolve(name);
        Files.copy(real.resolve("size"), entry.resolve("size"));
        Path stat = Files.createSymbolicLink(entry.resolve("stat"), real.resolve("stat"));
        cleanup.add(
                () -> Files.delete(stat)); // before @TempDir's clean-up, which warns about links out of the directory
        return sys;
    }

    @Test
    void zeroesEveryByteWithBlkdiscard() {
        ScratchDisk disk = disk(64 * MIB).fillRandom();
        assertThat(disk.zeroAt(0, 4096)).as("random data to start with").isFalse();
        Vsm.Result r =
                vsm.run("wipe", "--device", disk.device().toString(), "--yes").ok();
        assertProgress(r, disk, 67108864);
        assertThat(r.err()).isEmpty();
        assertThat(disk.allZero()).isTrue();
    }

    /** Off a terminal: a line per tenth done (as many as the device's counter showed in time), then the summary. */
    private static void assertProgress(Vsm.Result r, ScratchDisk disk, long bytes) {
        List<String> lines = r.lines();
        assertThat(lines)
                .last()
                .asString()
                .matches("zero-out " + disk.device() + ": " + bytes + " bytes in \\d+\\.\\d\\d s, \\d+\\.\\d MB/s");
        assertThat(lines.subList(0, lines.size() - 1))
                .allSatisfy(l -> assertThat(l)
                        .matches("zero-out " + disk.device() + ": \\d0% \\(\\d+ of " + bytes
                                + " bytes\\), [\\d.-]+ MB/s, ETA .*"));
    }

    @Test
    void theStepIsClampedToTheDevicesMaximum() throws IOException {
        ScratchDisk disk = disk(16 * MIB).fillRandom();
        vsm.env("VSM_SYSFS", fakeSysfs(disk, 1048576).toString());
        Vsm.Result dry = vsm.run("wipe", "--device", disk.device().toString(), "--dry-run")
                .ok();
        assertThat(dry.lines())
                .containsExactly(
                        "reduce stepsize to the maximum supported by the storage: 1048576 bytes",
                        "+ blkdiscard " + disk.device() + " -v --zeroout --step 1048576");
        Vsm.Result r =
                vsm.run("wipe", "--device", disk.device().toString(), "--yes").ok();
        assertThat(r.lines().get(0))
                .isEqualTo("reduce stepsize to the maximum supported by the storage: 1048576 bytes");
        assertThat(disk.allZero()).isTrue();
    }

    @Test
    void withoutWriteZeroesCstreamZeroesTheDevice() throws IOException {
        ScratchDisk disk = disk(16 * MIB).fillRandom();
        vsm.env("VSM_SYSFS", fakeSysfs(disk, 0).toString());
        assertThat(vsm.run("wipe", "--device", disk.device().toString(), "--dry-run", "--throughput", "5m")
                        .ok()
                        .lines())
                .containsExactly("+ cstream -i /dev/zero -o " + disk.device() + " -T 10 -v 1 -b 1048576 -t 5m");
        Vsm.Result r = vsm.run("wipe", "--device", disk.device().toString(), "--yes", "--throughput", "500m")
                .ok();
        assertProgress(r, disk, 16777216); // ENOSPC is cstream's normal end
        assertThat(r.err()).isEmpty();
        assertThat(disk.allZero()).isTrue();
    }

    @Test
    void stepsizeOverridesTheDefault() {
        ScratchDisk disk = disk(16 * MIB);
        assertThat(vsm.run("wipe", "--device", disk.device().toString(), "--dry-run")
                        .ok()
                        .lines())
                .containsExactly("+ blkdiscard " + disk.device() + " -v --zeroout --step 33554432");
        assertThat(vsm.run("wipe", "--device", disk.device().toString(), "--dry-run", "--stepsize", "4")
                        .ok()
                        .lines())
                .containsExactly("+ blkdiscard " + disk.device() + " -v --zeroout --step 4194304");
    }

    @Test
    void aDryRunChangesNothing() {
        ScratchDisk disk = disk(32 * MIB).fillRandom();
        String before = disk.sha256();
        vsm.run("wipe", "--device", disk.device().toString(), "--yes", "--dry-run")
                .ok();
        assertThat(disk.sha256()).isEqualTo(before);
    }

    @Test
    void refusals() throws IOException {
        ScratchDisk disk = disk(32 * MIB).fillRandom();
        String before = disk.sha256();
        String dev = disk.device().toString();
        vsm.run("wipe", "--device", dev)
                .badInput("refusing to zero '" + dev + "' without --yes: every byte on it will be lost");
        Path file = Files.write(sandbox.resolve("disk.raw"), new byte[] {1, 2, 3});
        vsm.run("wipe", "--device", file.toString(), "--yes")
                .badInput("'" + file + "' is not a block device - refusing to zero it");
        assertThat(Files.readAllBytes(file)).containsExactly(1, 2, 3);
        vsm.run("wipe", "--device", "/dev/vsm-test/missing", "--yes")
                .badInput("'/dev/vsm-test/missing' does not exist");
        assertThat(Files.exists(Path.of("/dev/vsm-test/missing"))).isFalse();
        vsm.run("wipe", "--device", "/dev/null", "--yes").badInput("'/dev/null' is not a block device");
        vsm.run("wipe", "--device", dev, "--yes", "--stepsize", "0").badInput("invalid stepsize 0 MiB");
        vsm.run("wipe", "--device", dev, "--yes", "--throughput", "fast").badInput("invalid throughput 'fast'");
        vsm.run("wipe", "--yes").badInput("give either a VOLUME or --device PATH to zero");
        assertThat(disk.sha256()).isEqualTo(before);
    }

    @Test
    void refusesAMountedDevice() throws IOException {
        ScratchDisk disk = disk(32 * MIB);
        ScratchDisk.run("mkfs.ext4", "-q", disk.device().toString());
        Path mnt = Files.createDirectories(sandbox.resolve("mnt"));
        ScratchDisk.run("mount", disk.device().toString(), mnt.toString());
        cleanup.add(() -> ScratchDisk.run("umount", mnt.toString()));
        Files.writeString(mnt.resolve("keep.txt"), "still here");
        vsm.run("wipe", "--device", disk.device().toString(), "--yes")
                .badInput("'" + disk.device() + "' is mounted on " + mnt + " ("
                        + disk.device().getFileName() + ") - unmount it first");
        assertThat(Files.readString(mnt.resolve("keep.txt"))).isEqualTo("still here");
    }

    @Test
    void onATerminalTheProgressLineIsRedrawn() {
        ScratchDisk disk = disk(64 * MIB).fillRandom();
        // script(1) gives vsm a pseudo-terminal as stdout
        String shell = Vsm.LAUNCHER + " wipe --device " + disk.device() + " --yes";
        Vsm.Result r = ScriptRun.underTerminal(vsm, shell);
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out())
                .contains("\rzero-out " + disk.device() + ": [####################] 100% 64.00 MiB of 64.00 MiB, ")
                .contains("\rzero-out " + disk.device() + ": 67108864 bytes in ");
        assertThat(disk.allZero()).isTrue();
    }

    @Test
    void sigtermStopsTheWipeAndItsChild() throws Exception {
        ScratchDisk disk = disk(256 * MIB).fillRandom();
        // cstream at pve's default throughput (10 MB/s) runs long enough to be stopped
        vsm.env("VSM_SYSFS", fakeSysfs(disk, 0).toString());
        Path err = sandbox.resolve("wipe.err");
        ProcessBuilder pb = new ProcessBuilder(
                        Vsm.LAUNCHER.toString(),
                        "wipe",
                        "--device",
                        disk.device().toString(),
                        "--yes")
                .redirectError(err.toFile())
                .redirectOutput(sandbox.resolve("wipe.out").toFile());
        pb.environment().put("VSM_SYSFS", sandbox.resolve("sys").toString());
        Process wipe = pb.start();
        try {
            ProcessHandle cstream = Children.await(wipe, "cstream");
            Thread.sleep(1500);
            wipe.destroy(); // SIGTERM to the JVM (the launcher execs java)
            assertThat(wipe.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(wipe.exitValue()).isEqualTo(143);
            cstream.onExit().get(10, TimeUnit.SECONDS);
            assertThat(cstream.isAlive()).isFalse();
            String message = Files.readString(err, StandardCharsets.UTF_8);
            assertThat(message.strip().lines()).hasSize(1);
            assertThat(message)
                    .startsWith("zero-out of '" + disk.device() + "' interrupted after ")
                    .contains(" of 268435456 bytes (")
                    .contains("cstream was stopped and the device is left partly zeroed for a later run to finish");
            assertThat(disk.zeroAt(0, 1 << 20)).as("the start was zeroed").isTrue();
            assertThat(disk.zeroAt(255 * MIB, 1 << 20))
                    .as("the end was not reached")
                    .isFalse();
        } finally {
            Children.killTree(wipe);
        }
    }
}
