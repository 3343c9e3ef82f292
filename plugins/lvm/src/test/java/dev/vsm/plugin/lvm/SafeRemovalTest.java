package dev.vsm.plugin.lvm;

import static dev.vsm.plugin.lvm.LvmStorageTest.assertBadInput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.engine.FileStorageLocks;
import dev.vsm.lock.FileLocks;
import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.InterruptedCommandException;
import dev.vsm.spi.PendingCleanup;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.ZeroOut;
import dev.vsm.testing.LoopDevice;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** saferemove on real lvm2: the del- rename under the lock, then activation, zero-out and removal. */
@RootTest
class SafeRemovalTest {
    private static final Map<String, Object> SAFE = Map.of("saferemove", true, "saferemove-stepsize", 1L);

    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);

    @TempDir
    Path locks;

    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private TestLvmStorage san() {
        return TestLvmStorage.on(vg, locks, SAFE);
    }

    private String path(String lv) {
        return "/dev/" + vg.name() + "/" + lv;
    }

    @Test
    void renamesUnderTheLockThenActivatesSkipsTheMissingDeviceAndRemoves() {
        TestLvmStorage t = san();
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096));
        String uuid = vg.uuid("vm-100-disk-0");
        Optional<Runnable> task = t.storage.freeImage(t.storage.parseVolname("vm-100-disk-0"));

        assertThat(t.ran("/sbin/lvrename"))
                .containsExactly(List.of("/sbin/lvrename", vg.name(), "vm-100-disk-0", "del-vm-100-disk-0"));
        assertThat(vg.lvNames()).containsExactly("del-vm-100-disk-0");
        assertThat(t.ran("/sbin/lvremove")).isEmpty();

        task.orElseThrow().run();
        assertThat(t.ran("/sbin/lvchange"))
                .containsExactly(
                        List.of("/sbin/lvchange", "-aly", path("del-vm-100-disk-0")),
                        List.of("/sbin/lvchange", "--refresh", path("del-vm-100-disk-0")));
        assertThat(t.ran("/sbin/lvremove"))
                .containsExactly(List.of(
                        "/sbin/lvremove", "-f", vg.name() + "/del-vm-100-disk-0", "--select", "lv_uuid=" + uuid));
        assertThat(vg.lvNames()).isEmpty();
        assertThat(t.console.infos())
                .containsExactly(
                        "zero-out data on image vm-100-disk-0 (" + path("del-vm-100-disk-0") + ")",
                        "successfully removed volume vm-100-disk-0 (" + vg.name() + "/del-vm-100-disk-0)");
        assertThat(t.console.warnings())
                .containsExactly(
                        "skip zero-out for volume '" + path("del-vm-100-disk-0")
                                + "' - it is not a block device (the activated LV has no device node: no device-mapper on this host?)");
    }

    @Test
    void aDelVolumeKeepsItsNumberTaken() {
        TestLvmStorage t = san();
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096));
        t.storage.freeImage(t.storage.parseVolname("vm-100-disk-0"));
        assertThat(t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096)))
                .isEqualTo("vm-100-disk-1");
    }

    @Test
    void freeFinishesPendingRemovalsFirst() {
        vg.createLv("del-vm-100-disk-5", 4);
        vg.createLv("del-root", 4); // not a volume of ours: left alone
        TestLvmStorage t = san();
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096));
        String pending = vg.uuid("del-vm-100-disk-5");
        String freed = vg.uuid("vm-100-disk-0");
        t.storage
                .freeImage(t.storage.parseVolname("vm-100-disk-0"))
                .orElseThrow()
                .run();
        assertThat(t.ran("/sbin/lvremove"))
                .containsExactly(
                        List.of(
                                "/sbin/lvremove",
                                "-f",
                                vg.name() + "/del-vm-100-disk-5",
                                "--select",
                                "lv_uuid=" + pending),
                        List.of(
                                "/sbin/lvremove",
                                "-f",
                                vg.name() + "/del-vm-100-disk-0",
                                "--select",
                                "lv_uuid=" + freed));
        assertThat(vg.lvNames()).containsExactly("del-root");
    }

    @Test
    void aStaleDelVolumeOfTheSameNameIsReportedNotRenamedOver() {
        vg.createLv("vm-100-disk-0", 4);
        vg.createLv("del-vm-100-disk-0", 4);
        TestLvmStorage t = san();
        assertThatThrownBy(() -> t.storage.freeImage(t.storage.parseVolname("vm-100-disk-0")))
                .hasMessage(
                        "storage 'san': " + vg.name() + "/del-vm-100-disk-0 from an earlier removal is still there; "
                                + "finish it with 'vsm cleanup san' and free the volume again");
        assertThat(t.ran("/sbin/lvrename")).isEmpty();
        assertThat(vg.lvNames()).containsExactly("del-vm-100-disk-0", "vm-100-disk-0");
    }

    @Test
    void pendingCleanupFindsOurDelVolumesOnly() {
        TestLvmStorage t = san();
        assertThat(t.storage.pendingCleanup()).isEmpty();
        vg.createLv("del-vm-100-disk-5", 4);
        vg.createLv("del-vm-101-disk-0", 4);
        vg.createLv("del-swap", 4);
        PendingCleanup pending = t.storage.pendingCleanup().orElseThrow();
        assertThat(pending.items()).containsExactlyInAnyOrder("del-vm-100-disk-5", "del-vm-101-disk-0");
        pending.task().run();
        assertThat(vg.lvNames()).containsExactly("del-swap");
        assertThat(t.storage.pendingCleanup()).isEmpty();
        assertBadInput(
                () -> t.storage.freeImage(t.storage.parseVolname("vm-100-disk-5")),
                "volume 'san:vm-100-disk-5' does not exist");
    }

    @Test
    void aVolumeClaimedByAnotherProcessIsLeftToIt() throws Exception {
        vg.createLv("del-vm-100-disk-5", 4);
        String uuid = vg.lvm("lvs", "--noheadings", "-o", "lv_uuid", vg.name() + "/del-vm-100-disk-5")
                .strip();
        FileStorageLocks other =
                new FileStorageLocks(new FileLocks(locks, new PrintStream(PrintStream.nullOutputStream())));
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<Boolean> holder = pool.submit(() -> other.tryExclusive("lvm-lv-" + uuid, () -> {
            held.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();

        TestLvmStorage t = san();
        t.storage.pendingCleanup().orElseThrow().task().run();
        assertThat(t.console.infos())
                .containsExactly("volume " + vg.name()
                        + "/del-vm-100-disk-5 is being removed by another vsm process - leaving it to that one");
        assertThat(vg.lvNames()).containsExactly("del-vm-100-disk-5");

        release.countDown();
        assertThat(holder.get(10, TimeUnit.SECONDS)).isTrue();
        t.storage.pendingCleanup().orElseThrow().task().run();
        assertThat(vg.lvNames()).isEmpty();
    }

    @Test
    void zeroesARealBlockDeviceThroughTheZeroOutEngineThenRemoves() {
        TestLvmStorage t = san();
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096));
        try (LoopDevice scratch = LoopDevice.create(8L << 20);
                DeviceNode node = DeviceNode.link(vg.name(), "del-vm-100-disk-0", scratch.path())) {
            assertThat(node.link()).isSymbolicLink();
            scratch.fillRandom(42);
            assertThat(scratch.nonZeroBytes()).isGreaterThan(8_000_000);
            t.storage
                    .freeImage(t.storage.parseVolname("vm-100-disk-0"))
                    .orElseThrow()
                    .run();
            assertThat(scratch.nonZeroBytes()).isZero();
        }
        assertThat(vg.lvNames()).isEmpty();
        assertThat(t.console.warnings()).isEmpty();
        assertThat(t.console.infos())
                .first()
                .isEqualTo("zero-out data on image vm-100-disk-0 (" + path("del-vm-100-disk-0") + ")");
        assertThat(t.console.infos())
                .last()
                .isEqualTo("successfully removed volume vm-100-disk-0 (" + vg.name() + "/del-vm-100-disk-0)");
    }

    @Test
    void aFailedWipeLeavesTheDelVolumeForLater() {
        List<String> asked = new ArrayList<>();
        ZeroOut failing = (device, stepMiB, throughput) -> {
            asked.add(device + " " + stepMiB + " " + throughput);
            throw StorageException.failed("blkdiscard: BLKZEROOUT ioctl failed: Input/output error");
        };
        TestLvmStorage t = TestLvmStorage.withZeroOut(
                vg,
                locks,
                Map.of("saferemove", true, "saferemove-stepsize", 4L, "saferemove_throughput", "1048576"),
                failing);
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096));
        try (LoopDevice scratch = LoopDevice.create(4L << 20);
                DeviceNode node = DeviceNode.link(vg.name(), "del-vm-100-disk-0", scratch.path())) {
            assertThat(node.link()).isSymbolicLink();
            Runnable task =
                    t.storage.freeImage(t.storage.parseVolname("vm-100-disk-0")).orElseThrow();
            assertThatThrownBy(task::run)
                    .isInstanceOf(StorageException.class)
                    .hasMessage(
                            "storage 'san': zero-out of " + vg.name()
                                    + "/del-vm-100-disk-0 failed, the volume stays until "
                                    + "it is done (run 'vsm cleanup san') - blkdiscard: BLKZEROOUT ioctl failed: Input/output error");
        }
        assertThat(asked).containsExactly(path("del-vm-100-disk-0") + " 4 1048576");
        assertThat(t.ran("/sbin/lvremove")).isEmpty();
        assertThat(vg.lvNames()).containsExactly("del-vm-100-disk-0");
    }

    @Test
    void anInterruptedWipeStopsEverythingAndLeavesTheVolumes() {
        vg.createLv("del-vm-100-disk-5", 4);
        ZeroOut interrupted = (device, stepMiB, throughput) -> {
            throw new InterruptedCommandException("blkdiscard stopped by SIGINT");
        };
        TestLvmStorage t = TestLvmStorage.withZeroOut(vg, locks, SAFE, interrupted);
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 4096));
        try (LoopDevice scratch = LoopDevice.create(4L << 20);
                DeviceNode node = DeviceNode.link(vg.name(), "del-vm-100-disk-5", scratch.path())) {
            assertThat(node.link()).isSymbolicLink();
            Runnable task =
                    t.storage.freeImage(t.storage.parseVolname("vm-100-disk-0")).orElseThrow();
            assertThatThrownBy(task::run)
                    .isInstanceOf(InterruptedCommandException.class)
                    .hasMessage("storage 'san': zero-out of "
                            + vg.name()
                            + "/del-vm-100-disk-5 stopped, the volume stays until it is done (run 'vsm cleanup san') - "
                            + "blkdiscard stopped by SIGINT");
        }
        assertThat(t.ran("/sbin/lvremove")).isEmpty();
        assertThat(vg.lvNames()).containsExactly("del-vm-100-disk-0", "del-vm-100-disk-5");
    }

    @Test
    void dryRunPrintsEveryStepAndChangesNothing() {
        vg.createLv("vm-100-disk-0", 4);
        TestLvmStorage t = TestLvmStorage.dryRun(vg, SAFE);
        t.storage
                .freeImage(t.storage.parseVolname("vm-100-disk-0"))
                .orElseThrow()
                .run();
        assertThat(t.console.commands())
                .startsWith(
                        "/sbin/lvrename " + vg.name() + " vm-100-disk-0 del-vm-100-disk-0",
                        "/sbin/lvchange -aly " + path("del-vm-100-disk-0"),
                        "/sbin/lvchange --refresh " + path("del-vm-100-disk-0"));
        assertThat(t.console.commands())
                .last()
                .isEqualTo("/sbin/lvremove -f " + vg.name() + "/del-vm-100-disk-0 --select lv_uuid="
                        + vg.uuid("vm-100-disk-0"));
        assertThat(t.console.commands()).hasSize(5); // the fourth: the zero-out engine's command
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
    }
}
