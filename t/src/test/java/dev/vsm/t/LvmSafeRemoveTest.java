package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Children;
import dev.vsm.t.support.LvmSandbox;
import dev.vsm.t.support.StandInNodes;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopDevice;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm free} on a saferemove storage and {@code vsm cleanup}, through the real cli/vsm.
 * Without device-mapper an LV never gets a device node; where a test needs one, a symlink
 * {@code /dev/<vg>/<lv>} to a scratch loop device stands in for it.
 */
@RootTest
class LvmSafeRemoveTest {
    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);

    @RegisterExtension
    final StandInNodes nodes = new StandInNodes(vg);

    @TempDir
    Path sandbox;

    private Vsm vsm() {
        return LvmSandbox.vsm(sandbox, vg, "saferemove: true", "saferemove-stepsize: 1");
    }

    @Test
    void freeWithoutADeviceNodeWarnsSkipsTheZeroingAndRemoves() {
        Vsm vsm = vsm();
        vsm.run("alloc", "san", "100", "", "4M").ok();
        Vsm.Result r = vsm.run("free", "san:vm-100-disk-0").ok();
        String del = "/dev/" + vg.name() + "/del-vm-100-disk-0";
        assertThat(r.lines())
                .containsExactly(
                        "zero-out data on image vm-100-disk-0 (" + del + ")",
                        "successfully removed volume vm-100-disk-0 (" + vg.name() + "/del-vm-100-disk-0)",
                        "Removed volume 'san:vm-100-disk-0'");
        assertThat(r.err())
                .isEqualTo("skip zero-out for volume '" + del + "' - it is not a block device"
                        + " (the activated LV has no device node: no device-mapper on this host?)\n");
        assertThat(vg.lvNames()).isEmpty();
    }

    @Test
    void dryRunShowsTheRenameAndEveryStepAndChangesNothing() {
        Vsm vsm = vsm();
        vsm.run("alloc", "san", "100", "", "4M").ok();
        Vsm.Result r = vsm.run("free", "san:vm-100-disk-0", "--dry-run").ok();
        String del = "/dev/" + vg.name() + "/del-vm-100-disk-0";
        assertThat(r.lines())
                .startsWith(
                        "+ /sbin/lvrename " + vg.name() + " vm-100-disk-0 del-vm-100-disk-0",
                        "zero-out data on image vm-100-disk-0 (" + del + ")",
                        "+ /sbin/lvchange -aly " + del,
                        "+ /sbin/lvchange --refresh " + del);
        assertThat(r.lines())
                .contains(
                        "+ /sbin/lvremove -f " + vg.name() + "/del-vm-100-disk-0 --select lv_uuid="
                                + vg.uuid("vm-100-disk-0"),
                        "would remove volume 'san:vm-100-disk-0'");
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
    }

    @Test
    void theDataIsZeroedWhenTheDeviceIsThere() throws IOException {
        Vsm vsm = vsm();
        vsm.run("alloc", "san", "100", "", "4M").ok();
        try (LoopDevice disk = LoopDevice.create(16L << 20)) {
            disk.fillRandom(7);
            nodes.link("del-vm-100-disk-0", disk.path());
            Vsm.Result r = vsm.run("free", "san:vm-100-disk-0").ok();
            assertThat(r.err()).isEmpty();
            assertThat(r.lines())
                    .first()
                    .isEqualTo("zero-out data on image vm-100-disk-0 (/dev/" + vg.name() + "/del-vm-100-disk-0)");
            assertThat(r.lines()).last().isEqualTo("Removed volume 'san:vm-100-disk-0'");
            assertThat(disk.nonZeroBytes()).isZero();
        }
        assertThat(vg.lvNames()).isEmpty();
    }

    @Test
    void aFailedWipeLeavesTheRenamedVolumeAndCleanupFinishesIt() throws IOException {
        Vsm vsm = vsm();
        vsm.run("alloc", "san", "100", "", "4M").ok();
        try (LoopDevice readOnly = LoopDevice.createReadOnly(4L << 20)) {
            nodes.link("del-vm-100-disk-0", readOnly.path());
            Vsm.Result r = vsm.run("free", "san:vm-100-disk-0");
            assertThat(r.exit()).isEqualTo(1);
            assertThat(r.err())
                    .startsWith("storage 'san': zero-out of " + vg.name() + "/del-vm-100-disk-0 failed, "
                            + "the volume stays until it is done (run 'vsm cleanup san') - ");
            assertThat(vg.lvNames()).as("renamed, not removed").containsExactly("del-vm-100-disk-0");
            assertThat(vsm.run("alloc", "san", "100", "", "4M").ok().out())
                    .as("its number stays taken")
                    .isEqualTo("successfully created 'san:vm-100-disk-1'\n");
        }
        nodes.remove();

        assertThat(vsm.run("cleanup", "san", "--dry-run").ok().lines())
                .last()
                .isEqualTo("cleanup of storage 'san' would be done (1 pending removal: del-vm-100-disk-0)");
        assertThat(vg.lvNames()).containsExactly("del-vm-100-disk-0", "vm-100-disk-1");
        Vsm.Result cleanup = vsm.run("cleanup", "san").ok();
        assertThat(cleanup.lines())
                .last()
                .isEqualTo("cleanup of storage 'san' done (1 pending removal: del-vm-100-disk-0)");
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-1");
        assertThat(vsm.run("cleanup", "san").ok().out()).isEqualTo("nothing to clean up on storage 'san'\n");
    }

    @Test
    void freeFinishesPendingRemovalsFirst() {
        vg.createLv("del-vm-100-disk-3", 4);
        Vsm vsm = vsm();
        vsm.run("alloc", "san", "100", "", "4M").ok();
        Vsm.Result r = vsm.run("free", "san:vm-100-disk-0").ok();
        assertThat(r.lines())
                .filteredOn(l -> l.startsWith("successfully removed"))
                .containsExactly(
                        "successfully removed volume vm-100-disk-3 (" + vg.name() + "/del-vm-100-disk-3)",
                        "successfully removed volume vm-100-disk-0 (" + vg.name() + "/del-vm-100-disk-0)");
        assertThat(vg.lvNames()).isEmpty();
    }

    @Test
    void sigtermDuringTheWipeLeavesTheRenamedVolumeForCleanup() throws Exception {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg, "saferemove: true", "saferemove_throughput: 1048576");
        vsm.run("alloc", "san", "100", "", "4M").ok();
        try (LoopDevice disk = LoopDevice.create(64L << 20)) {
            nodes.link("del-vm-100-disk-0", disk.path());
            // a device without WRITE ZEROES: the cstream fallback at 1 MiB/s runs long enough to be stopped
            Path sysfs = sandbox.resolve("sys");
            Path queue = Files.createDirectories(sysfs.resolve("block")
                    .resolve(disk.path().getFileName().toString())
                    .resolve("queue"));
            Files.writeString(queue.resolve("write_zeroes_max_bytes"), "0\n");
            Path err = sandbox.resolve("free.err");
            ProcessBuilder pb = new ProcessBuilder(Vsm.LAUNCHER.toString(), "free", "san:vm-100-disk-0")
                    .directory(sandbox.toFile())
                    .redirectError(err.toFile())
                    .redirectOutput(sandbox.resolve("free.out").toFile());
            pb.environment().putAll(vsm.environment());
            pb.environment().put("VSM_SYSFS", sysfs.toString());
            Process free = pb.start();
            try {
                ProcessHandle cstream = Children.await(free, "cstream");
                free.destroy(); // SIGTERM to the JVM (the launcher execs java)
                assertThat(free.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(free.exitValue()).isEqualTo(143);
                cstream.onExit().get(10, TimeUnit.SECONDS);
                String message = Files.readString(err, StandardCharsets.UTF_8);
                assertThat(message.strip().lines()).hasSize(1);
                assertThat(message)
                        .startsWith(
                                "storage 'san': zero-out of " + vg.name() + "/del-vm-100-disk-0 stopped, the volume "
                                        + "stays until it is done (run 'vsm cleanup san') - ");
            } finally {
                Children.killTree(free);
            }
            assertThat(vg.lvNames()).containsExactly("del-vm-100-disk-0");
        }
        nodes.remove();
        assertThat(vsm.run("cleanup", "san").ok().lines())
                .last()
                .isEqualTo("cleanup of storage 'san' done (1 pending removal: del-vm-100-disk-0)");
        assertThat(vg.lvNames()).isEmpty();
    }
}
