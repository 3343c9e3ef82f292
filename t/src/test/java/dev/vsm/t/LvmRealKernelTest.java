package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.guest.DiskVolumeGroup;
import dev.vsm.t.guest.Guest;
import dev.vsm.t.guest.InGuest;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.GuestTest;
import dev.vsm.testing.HostTools;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Thick LVM's zeroing on a real kernel ({@link InGuest}): saferemove and {@code vsm wipe} write
 * zeroes through real {@code dm-N} devices, with the blkdiscard step clamped to what the real
 * device's {@code queue/write_zeroes_max_bytes} says. {@code /dev/vda} takes qemu's default WRITE
 * ZEROES limit (2 GiB), {@code /dev/vdb} only 4 MiB, less than the storage's 32 MiB step. The
 * metadata-only tests ({@link LvmSafeRemoveTest}) cover the renames, the dry runs and cleanup.
 * Also here, to share the boot: a free killed while zeroing, and import, export, streams and copy
 * onto real thick and thin LVs.
 */
@GuestTest
class LvmRealKernelTest {
    private static final int MIB = 1024 * 1024;

    @RegisterExtension
    static final InGuest GUEST =
            InGuest.withDisks(Guest.Disk.mib(128), Guest.Disk.mib(320).maxWriteZeroesMiB(4));

    @TempDir
    Path sandbox;

    private DiskVolumeGroup vg;

    @AfterEach
    void tearDown() {
        if (vg != null) {
            vg.close();
        }
    }

    private Vsm vsm(String disk, String... properties) {
        vg = DiskVolumeGroup.create(disk);
        StringBuilder yaml = new StringBuilder("""
                storages:
                  san:
                    type: lvm
                    vgname: %s
                """.formatted(vg.name()));
        for (String p : properties) {
            yaml.append("    ").append(p).append('\n');
        }
        return new Vsm(sandbox).writeConfig(yaml.toString());
    }

    private Path dev(String lv) {
        return Path.of("/dev", vg.name(), lv);
    }

    @Test
    void saferemoveLeavesThePatternNowhereOnThePv() throws IOException {
        Vsm vsm = vsm("/dev/vda", "saferemove: true");
        vsm.run("alloc", "san", "100", "", "16M").ok();
        byte[] marker = ("vsm-saferemove-"
                        + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + "\n")
                .getBytes(StandardCharsets.US_ASCII);
        writeRepeated(dev("vm-100-disk-0"), marker, 16 * MIB);
        assertThat(occurrences(Path.of("/dev/vda"), marker))
                .as("the pattern on the PV before the free")
                .isGreaterThan(1000);

        Vsm.Result r = vsm.run("free", "san:vm-100-disk-0").ok();
        assertThat(r.out())
                .startsWith("zero-out data on image vm-100-disk-0 (/dev/" + vg.name() + "/del-vm-100-disk-0)\n")
                .endsWith("Removed volume 'san:vm-100-disk-0'\n");
        assertThat(r.err()).as("no skipped zero-out on a real kernel").isEmpty();
        assertThat(vg.lvNames()).isEmpty();
        assertThat(occurrences(Path.of("/dev/vda"), marker))
                .as("the pattern on the PV after the free")
                .isZero();
    }

    @Test
    void theStepIsTheStoragesClampedToTheRealDeviceLimit() throws IOException {
        Vsm vsm = vsm("/dev/vdb", "saferemove: true", "saferemove-stepsize: 32");
        vsm.run("alloc", "san", "100", "", "8M").ok();
        String dm = kernelName(dev("vm-100-disk-0"));
        assertThat(dm).startsWith("dm-");
        long limit = Long.parseLong(Files.readString(Path.of("/sys/block", dm, "queue/write_zeroes_max_bytes"))
                .strip());
        assertThat(limit)
                .as("the dm device's write_zeroes_max_bytes, from the 4 MiB virtio disk")
                .isEqualTo(4L * MIB);

        Vsm.Result dry = vsm.run("wipe", "san:vm-100-disk-0", "--dry-run").ok();
        assertThat(dry.out()).contains("+ blkdiscard " + dev("vm-100-disk-0") + " -v --zeroout --step " + limit + "\n");
        Vsm.Result free = vsm.run("free", "san:vm-100-disk-0").ok();
        assertThat(free.out() + free.err())
                .contains("reduce stepsize to the maximum supported by the storage: " + limit + " bytes");
        assertThat(vg.lvNames()).isEmpty();
    }

    @Test
    void onADeviceWithTheDefaultLimitTheStorageStepStays() throws IOException {
        Vsm vsm = vsm("/dev/vda", "saferemove-stepsize: 16");
        vsm.run("alloc", "san", "100", "", "8M").ok();
        String dm = kernelName(dev("vm-100-disk-0"));
        long limit = Long.parseLong(Files.readString(Path.of("/sys/block", dm, "queue/write_zeroes_max_bytes"))
                .strip());
        assertThat(limit).as("%s's write_zeroes_max_bytes", dm).isGreaterThan(16L * MIB);
        assertThat(vsm.run("wipe", "san:vm-100-disk-0", "--dry-run").ok().out())
                .contains("+ blkdiscard " + dev("vm-100-disk-0") + " -v --zeroout --step " + 16L * MIB + "\n");
    }

    @Test
    void wipeZeroesARealLv() throws IOException {
        Vsm vsm = vsm("/dev/vda");
        vsm.run("alloc", "san", "100", "", "12M").ok();
        byte[] marker = "vsm-wipe-marker\n".getBytes(StandardCharsets.US_ASCII);
        writeRepeated(dev("vm-100-disk-0"), marker, 12 * MIB);
        vsm.run("wipe", "san:vm-100-disk-0", "--yes").ok();
        assertThat(vg.lvNames()).as("wipe keeps the volume").containsExactly("vm-100-disk-0");
        if (!Files.exists(dev("vm-100-disk-0"))) {
            vg.lvm("lvchange", "-ay", vg.name() + "/vm-100-disk-0");
        }
        assertThat(nonZeroBytes(dev("vm-100-disk-0")))
                .as("non-zero bytes on the wiped LV")
                .isZero();
        assertThat(occurrences(Path.of("/dev/vda"), marker))
                .as("the pattern on the PV after the wipe")
                .isZero();
    }

    /**
     * {@code kill -9} of a {@code vsm free} (a cli/vsm process of its own) and of its blkdiscard
     * while the blkdiscard zeroes the renamed LV, three times: each leaves a {@code del-} LV and
     * nothing else, and {@code vsm cleanup} zeroes and removes them all: the pattern is nowhere
     * on the PV. A 1 MiB step on {@code /dev/vdb} makes the zeroing many requests long.
     */
    @Test
    void killedWhileZeroingLeavesADelLvThatCleanupFinishesZeroed() throws Exception {
        Vsm vsm = vsm("/dev/vdb", "saferemove: true", "saferemove-stepsize: 1");
        byte[] marker = ("vsm-killed-zeroing-"
                        + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + "\n")
                .getBytes(StandardCharsets.US_ASCII);
        List<String> pending = new ArrayList<>();
        int finishedFirst = 0;
        for (int round = 0; round < 6 && pending.size() < 3; round++) {
            String lv = vsm.run("alloc", "san", "100", "", "96M").ok().out().replaceAll("(?s).*'san:(.*)'.*", "$1");
            writeRepeated(dev(lv), marker, 96 * MIB);
            Vsm.Started started = vsm.start("free", "san:" + lv);
            ProcessHandle free = started.process().toHandle();
            boolean zeroing = false;
            while (free.isAlive() && !(zeroing = free.descendants().anyMatch(LvmRealKernelTest::isBlkdiscard))) {
                Thread.sleep(1);
            }
            List<ProcessHandle> children = free.descendants().toList();
            free.destroyForcibly();
            children.forEach(ProcessHandle::destroyForcibly);
            Vsm.Result r = started.finish(300);
            for (ProcessHandle child : children) {
                child.onExit().orTimeout(60, TimeUnit.SECONDS).join();
            }
            List<String> lvs = vg.lvNames();
            if (r.exit() == 0) {
                finishedFirst++; // the zeroing ended between seeing blkdiscard and the kill
                assertThat(lvs).as("round %d: a free that finished", round).doesNotContain(lv, "del-" + lv);
                continue;
            }
            assertThat(zeroing)
                    .as("round %d: vsm free ended with %d before it zeroed: %s", round, r.exit(), r.err())
                    .isTrue();
            pending.add("del-" + lv);
            assertThat(lvs).as("round %d: killed while zeroing", round).containsExactlyInAnyOrderElementsOf(pending);
        }
        System.out.printf(
                "LvmRealKernelTest: %d frees killed while zeroing, %d finished first%n", pending.size(), finishedFirst);
        assertThat(pending)
                .as("frees killed while zeroing (%d finished first)", finishedFirst)
                .hasSize(3);
        assertThat(occurrences(Path.of("/dev/vdb"), marker))
                .as("the pattern on the PV after the kills")
                .isGreaterThan(1000);

        Vsm.Result cleanup = vsm.run("cleanup", "san").ok();
        assertThat(vg.lvNames()).as("after %s", cleanup.out().strip()).isEmpty();
        assertThat(occurrences(Path.of("/dev/vdb"), marker))
                .as("the pattern on the PV after vsm cleanup")
                .isZero();
    }

    private static boolean isBlkdiscard(ProcessHandle process) {
        return process.info().command().map(c -> c.endsWith("/blkdiscard")).orElse(false);
    }

    /**
     * A qcow2 with a known pattern, imported onto a real LV and a real thin volume, exported from
     * each as a raw+size stream imported onto the other storage, and copied: every result equals
     * the source ({@code qemu-img compare}).
     */
    @Test
    void importExportStreamAndCopyOntoRealLvsAndThinVolumes() throws IOException {
        vg = DiskVolumeGroup.create("/dev/vda");
        vg.lvm("lvcreate", "-q", "--yes", "--type", "thin-pool", "-L", "40m", "-n", "pool", vg.name());
        Vsm vsm = new Vsm(sandbox).writeConfig("""
                storages:
                  san:
                    type: lvm
                    vgname: %1$s
                  thin:
                    type: lvmthin
                    vgname: %1$s
                    thinpool: pool
                """.formatted(vg.name()));
        Path source = sandbox.resolve("source.qcow2");
        HostTools.mustRun(Map.of(), "qemu-img", "create", "-q", "-f", "qcow2", source.toString(), "8M");
        HostTools.mustRun(
                Map.of(),
                "qemu-io",
                "-f",
                "qcow2",
                "-c",
                "write -q -P 0x5a 0 1M",
                "-c",
                "write -q -P 0xc3 5M 2M",
                "-c",
                "write -q -P 0x11 8191k 1k",
                source.toString());

        // one VG holds both storages' LVs: the thick ones are VM 100's and 101's, the thin ones 200's and 201's
        assertThat(vsm.run("import", "san", "100", source.toString()).ok().out())
                .endsWith("successfully imported 'san:vm-100-disk-0'\n");
        assertThat(vsm.run("import", "thin", "200", source.toString()).ok().out())
                .endsWith("successfully imported 'thin:vm-200-disk-0'\n");
        assertThat(vg.field("vm-100-disk-0", "segtype")).isEqualTo("linear");
        assertThat(vg.field("vm-200-disk-0", "segtype")).isEqualTo("thin");
        assertEqualsSource(source, "vm-100-disk-0", "the import onto the thick LV");
        assertEqualsSource(source, "vm-200-disk-0", "the import onto the thin volume");

        Path fromThick = sandbox.resolve("thick.raw+size");
        Path fromThin = sandbox.resolve("thin.raw+size");
        vsm.run("export", "san:vm-100-disk-0", "raw+size", fromThick.toString()).ok();
        vsm.run("export", "thin:vm-200-disk-0", "raw+size", fromThin.toString()).ok();
        assertThat(Files.size(fromThick)).as("8-byte size, then the data").isEqualTo(8 + 8L * MIB);
        vsm.run("import-stream", "thin:vm-201-disk-0", "raw+size", fromThick.toString())
                .ok();
        vsm.run("import-stream", "san:vm-101-disk-0", "raw+size", fromThin.toString())
                .ok();
        assertEqualsSource(source, "vm-201-disk-0", "the thick LV's stream imported onto the thin storage");
        assertEqualsSource(source, "vm-101-disk-0", "the thin volume's stream imported onto the thick storage");

        assertThat(vsm.run("copy", "thin:vm-200-disk-0", "san", "--vmid", "102")
                        .ok()
                        .out())
                .contains("san:vm-102-disk-0");
        assertEqualsSource(source, "vm-102-disk-0", "the copy of the thin volume onto the thick storage");
    }

    private void assertEqualsSource(Path source, String lv, String what) {
        Path device = dev(lv);
        if (!Files.exists(device)) {
            vg.lvm("lvchange", "-ay", "-K", vg.name() + "/" + lv);
        }
        HostTools.Result r = HostTools.run(
                Map.of(), "qemu-img", "compare", "-f", "qcow2", "-F", "raw", source.toString(), device.toString());
        assertThat(r.exit())
                .as("%s: qemu-img compare: %s", what, r.out() + r.err())
                .isZero();
    }

    /**
     * The kernel's name of a device ({@code dm-3}) as lsblk finds it from the device number: lvm2
     * without udev makes {@code /dev/mapper/VG-LV} a node of its own, not a link to {@code /dev/dm-3}.
     */
    static String kernelName(Path device) {
        return HostTools.mustRun(Map.of(), "lsblk", "-ndo", "KNAME", device.toString())
                .strip();
    }

    /** Fills the first {@code bytes} of a device with {@code marker} repeated, synced. */
    static void writeRepeated(Path device, byte[] marker, int bytes) throws IOException {
        byte[] data = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            data[i] = marker[i % marker.length];
        }
        Path file = Files.createTempFile("vsm-pattern", ".bin");
        try {
            Files.write(file, data);
            HostTools.mustRun(
                    Map.of(), "dd", "if=" + file, "of=" + device, "bs=1M", "conv=fsync,notrunc", "status=none");
        } finally {
            Files.delete(file);
        }
    }

    /** How often {@code marker} occurs on the device, read past the page cache (a zero-out through dm-N bypasses vda's). */
    static long occurrences(Path device, byte[] marker) throws IOException {
        HostTools.mustRun(Map.of(), "blockdev", "--flushbufs", device.toString());
        Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3\n");
        long count = 0;
        int matched = 0;
        byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(device)) {
            for (int n; (n = in.read(buf)) > 0; ) {
                for (int i = 0; i < n; i++) {
                    if (buf[i] == marker[matched]) {
                        if (++matched == marker.length) {
                            count++;
                            matched = 0;
                        }
                    } else {
                        matched = buf[i] == marker[0] ? 1 : 0;
                    }
                }
            }
        }
        return count;
    }

    static long nonZeroBytes(Path device) throws IOException {
        long count = 0;
        byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(device)) {
            for (int n; (n = in.read(buf)) > 0; ) {
                for (int i = 0; i < n; i++) {
                    if (buf[i] != 0) {
                        count++;
                    }
                }
            }
        }
        return count;
    }
}
