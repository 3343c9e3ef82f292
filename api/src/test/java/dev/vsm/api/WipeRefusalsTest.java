package dev.vsm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import dev.vsm.testing.HostTools;
import dev.vsm.testing.LoopDevice;
import dev.vsm.testing.LoopVolumeGroup;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The refusals of {@code vsm wipe --device} hold for a program that embeds vsm: through
 * {@link VsmStorage#wipe}, a configured storage's physical volume, a mounted device and a device
 * that holds a file system are refused, and nothing on them is written (checked by checksum); a
 * forced wipe zeroes a device that only holds a signature. Real loop devices, lvm2, mkfs.ext4 and
 * mount: needs root (skipped without, failed under {@code CI=true}).
 */
class WipeRefusalsTest {
    private static final long MIB = 1L << 20;

    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);

    @TempDir
    Path dir;

    @BeforeEach
    void needs() {
        HostTools.require(
                "zeroing loop devices",
                "/sbin/losetup",
                "/sbin/blkdiscard",
                "/sbin/wipefs",
                "/sbin/mkfs.ext4",
                "/bin/mount",
                "/bin/umount");
    }

    private VsmStorage vsm(String config) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.putAll(vg.environment());
        return VsmStorage.builder()
                .configText(config)
                .lockDirectory(dir.resolve("locks"))
                .environment(env)
                .output(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), System.err)
                .build();
    }

    private VsmStorage vsm() {
        return vsm("storages: {}\n");
    }

    @Test
    void aPhysicalVolumeOfAConfiguredStorageIsRefusedEvenWithForce() {
        vg.createLv("vm-100-disk-0", 4);
        String before = sha256(vg.backingFile());
        try (VsmStorage vsm = vsm(san())) {
            for (boolean force : new boolean[] {false, true}) {
                assertThatThrownBy(
                                () -> vsm.wipe(Wipe.device(Path.of(vg.device())).force(force)))
                        .isInstanceOf(StorageException.class)
                        .hasFieldOrPropertyWithValue("kind", StorageException.Kind.BAD_INPUT)
                        .hasMessage("'" + vg.device() + "' is physical volume " + vg.device() + " of volume group '"
                                + vg.name() + "', which storage 'san' uses - remove the storage first (vsm remove san);"
                                + " not zeroing it (--force does not override this)");
            }
        }
        assertThat(sha256(vg.backingFile())).isEqualTo(before);
        assertThat(vg.lvNames()).contains("vm-100-disk-0");
        // not configured, the group's PV signature refuses it
        try (VsmStorage vsm = vsm()) {
            assertThatThrownBy(() -> vsm.wipe(Wipe.device(Path.of(vg.device()))))
                    .isInstanceOf(StorageException.class)
                    .hasMessageContaining("it holds LVM2_member signature")
                    .hasMessageEndingWith("add --force to zero it anyway");
        }
        assertThat(sha256(vg.backingFile())).isEqualTo(before);
    }

    @Test
    void aSecondLoopDeviceOnAPhysicalVolumesFileIsRefusedEvenWithForce() {
        vg.createLv("vm-100-disk-0", 4);
        String before = sha256(vg.backingFile());
        try (LoopDevice second = LoopDevice.on(vg.backingFile());
                VsmStorage vsm = vsm(san())) {
            assertThatThrownBy(() -> vsm.wipe(Wipe.device(second.path()).force(true)))
                    .isInstanceOf(StorageException.class)
                    .hasFieldOrPropertyWithValue("kind", StorageException.Kind.BAD_INPUT)
                    .hasMessage("'" + second.path() + "' is the same device as physical volume " + vg.device()
                            + " of volume group '" + vg.name() + "' (the same backing file " + vg.backingFile()
                            + "), which storage 'san' uses - remove the storage first (vsm remove san);"
                            + " not zeroing it (--force does not override this)");
        }
        assertThat(sha256(vg.backingFile())).isEqualTo(before);
        assertThat(vg.lvNames()).contains("vm-100-disk-0");
    }

    @Test
    void aDeviceWithThePhysicalVolumesLabelIsRefusedEvenWithForce() throws IOException {
        // a second path to one LUN shows the same label; here a copy of the label on a device of its own
        try (LoopDevice other = LoopDevice.create(8 * MIB);
                VsmStorage vsm = vsm(san())) {
            byte[] label;
            try (InputStream in = Files.newInputStream(vg.backingFile())) {
                label = in.readNBytes((int) MIB);
            }
            Files.write(other.path(), label);
            String before = sha256(other.path());
            String uuid = HostTools.mustRun(
                            vg.environment(), "/sbin/lvm", "pvs", "--noheadings", "-o", "pv_uuid", vg.device())
                    .strip()
                    .replace("-", "");
            assertThatThrownBy(() -> vsm.wipe(Wipe.device(other.path()).force(true)))
                    .isInstanceOf(StorageException.class)
                    .hasFieldOrPropertyWithValue("kind", StorageException.Kind.BAD_INPUT)
                    .hasMessage("'" + other.path() + "' is the same device as physical volume " + vg.device()
                            + " of volume group '" + vg.name() + "' (the same LVM physical volume UUID " + uuid
                            + "), which storage 'san' uses - remove the storage first (vsm remove san);"
                            + " not zeroing it (--force does not override this)");
            assertThat(sha256(other.path())).isEqualTo(before);
        }
    }

    private String san() {
        return """
                storages:
                  san:
                    type: lvm
                    vgname: %s
                """.formatted(vg.name());
    }

    @Test
    void aFileSystemIsRefusedUnlessForced() {
        try (LoopDevice disk = LoopDevice.create(32 * MIB);
                VsmStorage vsm = vsm()) {
            HostTools.mustRun(
                    Map.of(), "/sbin/mkfs.ext4", "-q", "-F", disk.path().toString());
            String before = sha256(disk.file());
            assertThatThrownBy(() -> vsm.wipe(Wipe.device(disk.path())))
                    .isInstanceOf(StorageException.class)
                    .hasFieldOrPropertyWithValue("kind", StorageException.Kind.BAD_INPUT)
                    .hasMessage("'" + disk.path() + "' is not empty: it holds ext4 signature at offset 0x438 of "
                            + disk.path().getFileName() + " - not zeroing it; add --force to zero it anyway");
            assertThat(sha256(disk.file())).isEqualTo(before);

            vsm.wipe(Wipe.device(disk.path()).force(true));
            assertThat(disk.nonZeroBytes()).isZero();
        }
    }

    @Test
    void aMountedDeviceIsRefusedEvenWithForce() throws IOException {
        try (LoopDevice disk = LoopDevice.create(32 * MIB);
                VsmStorage vsm = vsm()) {
            HostTools.mustRun(
                    Map.of(), "/sbin/mkfs.ext4", "-q", "-F", disk.path().toString());
            Path mnt = Files.createDirectories(dir.resolve("mnt"));
            HostTools.mustRun(Map.of(), "/bin/mount", disk.path().toString(), mnt.toString());
            try {
                Files.writeString(mnt.resolve("keep.txt"), "still here");
                assertThatThrownBy(() -> vsm.wipe(Wipe.device(disk.path()).force(true)))
                        .isInstanceOf(StorageException.class)
                        .hasFieldOrPropertyWithValue("kind", StorageException.Kind.BAD_INPUT)
                        .hasMessage("'" + disk.path() + "' is mounted on " + mnt + " ("
                                + disk.path().getFileName()
                                + ") - unmount it first; not zeroing it (--force does not override this: it would"
                                + " corrupt a running system)");
                assertThat(Files.readString(mnt.resolve("keep.txt"))).isEqualTo("still here");
            } finally {
                HostTools.mustRun(Map.of(), "/bin/umount", mnt.toString());
            }
        }
    }

    @Test
    void aFileIsNotABlockDevice() throws IOException {
        Path file = Files.writeString(dir.resolve("disk.img"), "data");
        try (VsmStorage vsm = vsm()) {
            assertThatThrownBy(() -> vsm.wipe(Wipe.device(file).force(true)))
                    .isInstanceOf(StorageException.class)
                    .hasFieldOrPropertyWithValue("kind", StorageException.Kind.BAD_INPUT);
        }
        assertThat(Files.readString(file)).isEqualTo("data");
    }

    private static String sha256(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 20];
            int n;
            while ((n = in.read(buffer)) > 0) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
