package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.guest.DiskVolumeGroup;
import dev.vsm.t.guest.Guest;
import dev.vsm.t.guest.InGuest;
import dev.vsm.testing.HostTools;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
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
 */
class LvmRealKernelTest {
    private static final int MIB = 1024 * 1024;

    @RegisterExtension
    static final InGuest GUEST = InGuest.withDisks(Guest.Disk.mib(128), Guest.Disk.mib(128).maxWriteZeroesMiB(4));

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
        byte[] marker = ("vsm-saferemove-" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + "\n")
                .getBytes(StandardCharsets.US_ASCII);
        writeRepeated(dev("vm-100-disk-0"), marker, 16 * MIB);
        assertThat(occurrences(Path.of("/dev/vda"), marker)).as("the pattern on the PV before the free").isGreaterThan(1000);

        Vsm.Result r = vsm.run("free", "san:vm-100-disk-0").ok();
        assertThat(r.out()).startsWith("zero-out data on image vm-100-disk-0 (/dev/" + vg.name() + "/del-vm-100-disk-0)\n")
                .endsWith("Removed volume 'san:vm-100-disk-0'\n");
        assertThat(r.err()).as("no skipped zero-out on a real kernel").isEmpty();
        assertThat(vg.lvNames()).isEmpty();
        assertThat(occurrences(Path.of("/dev/vda"), marker)).as("the pattern on the PV after the free").isZero();
    }

    @Test
    void theStepIsTheStoragesClampedToTheRealDeviceLimit() throws IOException {
        Vsm vsm = vsm("/dev/vdb", "saferemove: true", "saferemove-stepsize: 32");
        vsm.run("alloc", "san", "100", "", "8M").ok();
        String dm = kernelName(dev("vm-100-disk-0"));
        assertThat(dm).startsWith("dm-");
        long limit = Long.parseLong(Files.readString(Path.of("/sys/block", dm, "queue/write_zeroes_max_bytes")).strip());
        assertThat(limit).as("the dm device's write_zeroes_max_bytes, from the 4 MiB virtio disk").isEqualTo(4L * MIB);

        Vsm.Result dry = vsm.run("wipe", "san:vm-100-disk-0", "--dry-run").ok();
        assertThat(dry.out()).contains("+ blkdiscard " + dev("vm-100-disk-0") + " -v --zeroout --step " + limit + "\n");
        Vsm.Result free = vsm.run("free", "san:vm-100-disk-0").ok();
        assertThat(free.out() + free.err()).contains("reduce stepsize to the maximum supported by the storage: " + limit + " bytes");
        assertThat(vg.lvNames()).isEmpty();
    }

    @Test
    void onADeviceWithTheDefaultLimitTheStorageStepStays() throws IOException {
        Vsm vsm = vsm("/dev/vda", "saferemove-stepsize: 16");
        vsm.run("alloc", "san", "100", "", "8M").ok();
        String dm = kernelName(dev("vm-100-disk-0"));
        long limit = Long.parseLong(Files.readString(Path.of("/sys/block", dm, "queue/write_zeroes_max_bytes")).strip());
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
        assertThat(nonZeroBytes(dev("vm-100-disk-0"))).as("non-zero bytes on the wiped LV").isZero();
        assertThat(occurrences(Path.of("/dev/vda"), marker)).as("the pattern on the PV after the wipe").isZero();
    }

    /**
     * The kernel's name of a device ({@code dm-3}) as lsblk finds it from the device number: lvm2
     * without udev makes {@code /dev/mapper/VG-LV} a node of its own, not a link to {@code /dev/dm-3}.
     */
    static String kernelName(Path device) {
        return HostTools.mustRun(Map.of(), "lsblk", "-ndo", "KNAME", device.toString()).strip();
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
            HostTools.mustRun(Map.of(), "dd", "if=" + file, "of=" + device, "bs=1M", "conv=fsync,notrunc", "status=none");
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
