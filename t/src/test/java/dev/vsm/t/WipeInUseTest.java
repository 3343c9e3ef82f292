package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Cleanup;
import dev.vsm.t.support.LvmSandbox;
import dev.vsm.t.support.ScratchDisk;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm wipe --device} refuses a device in use, with what it holds and how to override it,
 * and writes nothing (checked by checksum): a physical volume of a configured storage's volume
 * group, a file system, a partition table; {@code --force} zeroes a device that only holds
 * signatures, never a mounted one or a configured storage's. A device of zeros is zeroed as before.
 */
@RootTest
class WipeInUseTest {
    private static final long MIB = 1L << 20;

    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);

    @TempDir
    Path sandbox;

    @RegisterExtension
    final Cleanup cleanup = new Cleanup();

    @BeforeEach
    void needs() {
        ScratchDisk.requireRootLoopAndTools(
                "losetup", "blkdiscard", "wipefs", "sfdisk", "mkfs.ext4", "mount", "umount");
    }

    private ScratchDisk disk(long bytes) {
        return cleanup.add(ScratchDisk.create(sandbox, bytes));
    }

    private static String sha256(Path file) {
        return ScratchDisk.run("sha256sum", file.toString()).split(" ")[0];
    }

    @Test
    void aPhysicalVolumeOfAConfiguredStorageIsRefusedEvenWithForce() {
        vg.createLv("vm-100-disk-0", 4);
        vg.createLv("vm-101-disk-0", 4);
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        String before = sha256(vg.backingFile());
        for (String[] args : new String[][] {{"--yes"}, {"--yes", "--force"}, {"--dry-run"}}) {
            List<String> argv = new ArrayList<>(List.of("wipe", "--device", vg.device()));
            argv.addAll(List.of(args));
            vsm.run(argv.toArray(String[]::new))
                    .badInput("'" + vg.device() + "' is physical volume " + vg.device()
                            + " of volume group '" + vg.name()
                            + "', which storage 'san' uses - remove the storage first (vsm remove san); "
                            + "not zeroing it (--force does not override this)");
        }
        assertThat(sha256(vg.backingFile())).isEqualTo(before);
        assertThat(vg.lvNames()).contains("vm-100-disk-0", "vm-101-disk-0");
        // the same group, not configured: its PV signature is what refuses it
        Vsm unconfigured = new Vsm(sandbox.resolve("other")).env(vg.environment());
        unconfigured
                .run("wipe", "--device", vg.device(), "--yes")
                .badInput("'" + vg.device()
                        + "' is not empty: it holds LVM2_member signature at offset 0x218 of "
                        + Path.of(vg.device()).getFileName()
                        + " - not zeroing it; add --force to zero it anyway");
        assertThat(sha256(vg.backingFile())).isEqualTo(before);
    }

    @Test
    void aFileSystemIsRefusedUnlessForced() {
        ScratchDisk disk = disk(32 * MIB);
        ScratchDisk.run("mkfs.ext4", "-q", "-F", disk.device().toString());
        Vsm vsm = new Vsm(sandbox);
        String before = disk.sha256();
        String dev = disk.device().toString();
        vsm.run("wipe", "--device", dev, "--yes")
                .badInput("'" + dev + "' is not empty: it holds ext4 signature at offset 0x438 of "
                        + disk.device().getFileName() + " - not zeroing it; add --force to zero it anyway");
        vsm.run("wipe", "--device", dev, "--dry-run").badInput("ext4 signature");
        assertThat(disk.sha256()).isEqualTo(before);
        vsm.run("wipe", "--device", dev, "--yes", "--force").ok();
        assertThat(disk.allZero()).isTrue();
    }

    @Test
    void aPartitionTableIsRefused() throws Exception {
        for (String label : new String[] {"gpt", "dos"}) {
            ScratchDisk disk = disk(32 * MIB);
            sfdisk(disk.device(), "label: " + label + "\n,16M\n,\n");
            Vsm vsm = new Vsm(sandbox);
            String before = disk.sha256();
            vsm.run("wipe", "--device", disk.device().toString(), "--yes")
                    .badInput("it holds " + label + " signature at offset ");
            assertThat(disk.sha256()).as(label).isEqualTo(before);
        }
    }

    @Test
    void aDeviceOfZerosIsZeroed() {
        ScratchDisk disk = disk(16 * MIB);
        new Vsm(sandbox)
                .run("wipe", "--device", disk.device().toString(), "--yes")
                .ok();
        assertThat(disk.allZero()).isTrue();
    }

    @Test
    void forceDoesNotZeroAMountedDevice() throws Exception {
        ScratchDisk disk = disk(32 * MIB);
        ScratchDisk.run("mkfs.ext4", "-q", disk.device().toString());
        Path mnt = Files.createDirectories(sandbox.resolve("mnt"));
        ScratchDisk.run("mount", disk.device().toString(), mnt.toString());
        cleanup.add(() -> ScratchDisk.run("umount", mnt.toString()));
        Files.writeString(mnt.resolve("keep.txt"), "still here");
        new Vsm(sandbox)
                .run("wipe", "--device", disk.device().toString(), "--yes", "--force")
                .badInput("'" + disk.device() + "' is mounted on " + mnt + " ("
                        + disk.device().getFileName() + ") - unmount it first; "
                        + "not zeroing it (--force does not override this: it would corrupt a running system)");
        assertThat(Files.readString(mnt.resolve("keep.txt"))).isEqualTo("still here");
    }

    private static void sfdisk(Path device, String script) throws Exception {
        Process p = new ProcessBuilder("sfdisk", "-q", "--no-reread", device.toString())
                .redirectErrorStream(true)
                .start();
        p.getOutputStream().write(script.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("sfdisk: %s", out).isZero();
    }
}
