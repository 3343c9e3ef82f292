package dev.vsm.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import dev.vsm.testing.Archives;
import dev.vsm.testing.VmaWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link VzdumpConfig} on archives made with the real tar, gzip, lzop, zstd and bzip2. */
class VzdumpConfigTest {
    private static final String PCT =
            "arch: amd64\nhostname: ct101\nmemory: 512\nrootfs: local:101/vm-101-disk-0.raw,size=8G\n";
    private static final String QM = "boot: order=scsi0\nmemory: 2048\nname: vm100\n";

    @TempDir
    Path dir;

    @BeforeEach
    void tools() {
        Archives.requireTools();
    }

    private String extract(Path archive) {
        return VzdumpConfig.extract(archive, ArchiveInfo.of(archive.toString(), ZoneId.of("UTC")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".gz", ".lzo", ".zst", ".bz2"})
    void aContainersTarArchive(String suffix) {
        Path archive = dir.resolve("vzdump-lxc-101-2020_03_30-21_39_30.tar" + suffix);
        Archives.tar(
                archive,
                Map.of("./etc/vzdump/pct.conf", PCT, "./etc/hostname", "ct101\n"),
                suffix.isEmpty() ? null : suffix.substring(1));
        assertThat(extract(archive)).isEqualTo(PCT);
    }

    @Test
    void aTgz() {
        Path archive = dir.resolve("vzdump-openvz-101-2020_03_30-21_39_30.tgz");
        Archives.tar(archive, Map.of("./etc/vzdump/vps.conf", "a: b"), "gz");
        assertThat(extract(archive)).isEqualTo("a: b\n");
    }

    @Test
    void aVmsTarArchive() {
        Path archive = dir.resolve("vzdump-qemu-100-2020_03_30-21_39_30.tar.zst");
        Archives.tar(archive, Map.of("./qemu-server.conf", QM, "./vm-disk-scsi0.raw", "x"), "zst");
        assertThat(extract(archive)).isEqualTo(QM);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".gz", ".lzo", ".zst", ".bz2"})
    void aVmaArchive(String suffix) {
        Path archive = dir.resolve("vzdump-qemu-100-2020_03_30-21_39_30.vma" + suffix);
        byte[] header = new VmaWriter()
                .config("qemu-server.conf", QM)
                .device("drive-scsi0", 1L << 30)
                .header();
        byte[] withData =
                Arrays.copyOf(header, header.length + (4 << 20)); // more than a pipe holds: the decompressor is stopped
        Archives.write(archive, withData, suffix.isEmpty() ? null : suffix.substring(1));
        assertThat(extract(archive)).isEqualTo(QM);
    }

    @Test
    void anArchiveWithoutAConfiguration() {
        Path archive = dir.resolve("vzdump-lxc-101-2020_03_30-21_39_30.tar.gz");
        Archives.tar(archive, Map.of("./etc/hostname", "ct101\n", "./x/etc/vzdump/pct.conf", "not this one"), "gz");
        assertRefused(archive, "ERROR: archive contains no configuration file ('" + archive + "')");
        Path vma = dir.resolve("vzdump-qemu-100-2020_03_30-21_39_30.vma");
        Archives.write(
                vma,
                new VmaWriter()
                        .config("qemu-server.fw", "x")
                        .device("drive-scsi0", 1L << 30)
                        .header(),
                null);
        assertRefused(vma, "unable to find configuration data 'qemu-server.conf' in '" + vma + "'");
    }

    @Test
    void aCorruptCompressedArchiveIsBadInput() throws IOException {
        Path archive = dir.resolve("vzdump-qemu-100-2020_03_30-21_39_30.vma.zst");
        Files.write(archive, Archives.utf8("this is not zstd data at all"));
        assertThatThrownBy(() -> extract(archive))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("unable to read archive '" + archive + "' - command 'zstd -q -d -c' failed")
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
        Path tar = dir.resolve("vzdump-lxc-101-2020_03_30-21_39_30.tar.lzo");
        Files.write(tar, Archives.utf8("not lzop"));
        assertThatThrownBy(() -> extract(tar))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("unable to read archive '" + tar + "' - command 'lzop -d -c' failed")
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
    }

    @Test
    void aCutCompressedVmaIsBadInput() {
        Path archive = dir.resolve("vzdump-qemu-100-2020_03_30-21_39_30.vma.gz");
        byte[] header = new VmaWriter()
                .config("qemu-server.conf", QM)
                .device("drive-scsi0", 1L << 30)
                .header();
        Archives.write(archive, Arrays.copyOf(header, 5000), "gz");
        assertRefused(archive, "'" + archive + "': can't read vma header - got EOF");
    }

    @Test
    void aLinkIsNotFollowed() throws IOException {
        Path target = dir.resolve("elsewhere.tar");
        Archives.tar(target, Map.of("./etc/vzdump/pct.conf", PCT), null);
        Path link = Files.createSymbolicLink(dir.resolve("vzdump-lxc-101-2020_03_30-21_39_30.tar"), target);
        assertRefused(link, "ERROR: file '" + link + "' does not exist");
    }

    @Test
    void aHugeConfigurationIsRefused() {
        Path archive = dir.resolve("vzdump-lxc-101-2020_03_30-21_39_30.tar.zst");
        Archives.tar(archive, Map.of("./etc/vzdump/pct.conf", "x".repeat(VzdumpConfig.MAX_CONFIG + 1)), "zst");
        assertRefused(archive, "the configuration in '" + archive + "' is larger than 1048576 bytes");
    }

    /** Four times {@link VzdumpConfig#MAX_UNPACKED} of zeros: each bomb below unpacks to this. */
    private static final long BOMB = 4 * VzdumpConfig.MAX_UNPACKED;

    @ParameterizedTest
    @ValueSource(strings = {"gz", "lzo", "zst", "bz2"})
    void aTarBombIsRefusedAfterTheLimit(String compression) throws IOException {
        Path archive = dir.resolve("vzdump-lxc-101-2020_03_30-21_39_30.tar." + compression);
        Archives.tarBomb(archive, Map.of(), BOMB, Map.of("./etc/vzdump/pct.conf", PCT), compression);
        long before = bytesRead();
        assertRefused(
                archive,
                "unable to read archive '" + archive
                        + "' - no configuration within its first 64 MiB unpacked (vzdump writes it first): not reading on");
        assertThat(bytesRead() - before).isLessThan(VzdumpConfig.MAX_UNPACKED + (8 << 20));
    }

    @ParameterizedTest
    @ValueSource(strings = {"gz", "lzo", "zst", "bz2"})
    void aTarWhoseConfigurationComesFirstIsReadOnlyToItsEnd(String compression) throws IOException {
        Path archive = dir.resolve("vzdump-qemu-100-2020_03_30-21_39_30.tar." + compression);
        Archives.tarBomb(archive, Map.of("./qemu-server.conf", QM), BOMB, Map.of(), compression);
        long before = bytesRead();
        assertThat(extract(archive)).isEqualTo(QM);
        assertThat(bytesRead() - before).isLessThan(8 << 20);
    }

    @ParameterizedTest
    @ValueSource(strings = {"gz", "lzo", "zst", "bz2"})
    void aVmaBombIsReadOnlyToTheEndOfItsHeader(String compression) throws IOException {
        Path archive = dir.resolve("vzdump-qemu-100-2020_03_30-21_39_30.vma." + compression);
        byte[] header = new VmaWriter()
                .config("qemu-server.conf", QM)
                .device("drive-scsi0", 1L << 40)
                .header();
        Archives.bomb(archive, header, BOMB, compression);
        long before = bytesRead();
        assertThat(extract(archive)).isEqualTo(QM);
        assertThat(bytesRead() - before).isLessThan(8 << 20);
    }

    /**
     * The bytes this JVM and the children it has reaped (the decompressors, tar) have read so far:
     * {@code rchar} of {@code /proc/self/io}, files and pipes alike.
     */
    private static long bytesRead() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
            if (line.startsWith("rchar:")) {
                return Long.parseLong(line.substring(6).trim());
            }
        }
        throw new AssertionError("no rchar in /proc/self/io");
    }

    private void assertRefused(Path archive, String message) {
        assertThatThrownBy(() -> extract(archive))
                .isInstanceOf(StorageException.class)
                .hasMessage(message)
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
    }
}
