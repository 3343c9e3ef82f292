package dev.vsm.qemu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.qemu.Qcow2Header.InvalidHeaderException;
import dev.vsm.testing.Tools;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The qcow2 header reader against images made by the real qemu-img (read the same as
 * {@code qemu-img info} reads them) and against hostile headers: cut short at every length,
 * fields out of range, offsets and lengths past the end, and random damage.
 */
class Qcow2HeaderTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({
        "'compat=0.10', 1G",
        "'compat=1.1', 1G",
        "'cluster_size=512', 3M",
        "'cluster_size=2M', 100G",
        "'extended_l2=on,cluster_size=16k', 10G",
        "'extended_l2=on,cluster_size=128k,preallocation=metadata', 64M",
        "'extended_l2=on,cluster_size=2M', 1T",
        "'compression_type=zstd', 1G",
        "'lazy_refcounts=on', 1G",
    })
    void readsWhatQemuImgReports(String options, String size) throws Exception {
        Path img = dir.resolve("x.qcow2");
        Tools.run(dir, "qemu-img", "create", "-q", "-f", "qcow2", "-o", options, img.toString(), size);
        assertSameAsQemuImg(img);
    }

    @ParameterizedTest
    @ValueSource(strings = {"base.raw", "../b/base,with,commas.raw", "sp ace/ünï côdé.raw", "/abs/path/base.raw"})
    void readsBackingFileNameAndFormat(String backing) throws Exception {
        Path img = dir.resolve("clone.qcow2");
        Tools.run(
                dir,
                "qemu-img",
                "create",
                "-q",
                "-f",
                "qcow2",
                "-u",
                "-F",
                "raw",
                "-b",
                backing,
                "-o",
                "extended_l2=on,cluster_size=128k",
                img.toString(),
                "1G");
        Qcow2Header h = assertSameAsQemuImg(img);
        assertThat(h.backingFile()).isEqualTo(backing);
        assertThat(h.backingFormat()).isEqualTo("raw");
        assertThat(h.untrustedReason()).isEmpty();
    }

    @Test
    void backingFileWithoutFormatExtension() throws Exception {
        Path img = dir.resolve("v2.qcow2");
        Tools.run(
                dir,
                "qemu-img",
                "create",
                "-q",
                "-f",
                "qcow2",
                "-o",
                "compat=0.10",
                "-u",
                "-F",
                "qcow2",
                "-b",
                "base.qcow2",
                img.toString(),
                "1G");
        byte[] bytes = Files.readAllBytes(img);
        // drop the backing format extension: turn it into the end-of-extensions marker
        int at = indexOf(
                bytes,
                ByteBuffer.allocate(4).putInt(Qcow2Header.EXT_BACKING_FORMAT).array());
        assertThat(at).isPositive();
        Arrays.fill(bytes, at, at + 4, (byte) 0);
        Files.write(img, bytes);
        Qcow2Header h = assertSameAsQemuImg(img);
        assertThat(h.backingFile()).isEqualTo("base.qcow2");
        assertThat(h.backingFormat()).isNull();
    }

    @Test
    void encryptionDataFilesAndDirtyImagesAreLeftToQemuImg() throws Exception {
        // (made by patching: creating a LUKS image benchmarks PBKDF, which fails on a busy machine)
        Path enc = image("1G");
        patch(enc, 32, 4, 2);
        assertThat(Qcow2Header.read(enc).untrustedReason()).contains("the image is encrypted");

        Path df = dir.resolve("df.qcow2");
        Tools.run(dir, "qemu-img", "create", "-q", "-f", "qcow2", "-o", "data_file=df.raw", df.toString(), "1M");
        assertThat(Qcow2Header.read(df).untrustedReason()).contains("the image has an external data file");

        Path dirty = image("1G");
        patch(dirty, 72, 8, Qcow2Header.DIRTY);
        assertThat(Qcow2Header.read(dirty).untrustedReason()).contains("the image is marked dirty or corrupt");

        Path unknown = image("1G");
        patch(unknown, 72, 8, 1L << 40);
        assertThat(Qcow2Header.read(unknown).untrustedReason())
                .hasValueSatisfying(r -> assertThat(r).contains("0x10000000000"));
    }

    @Test
    void notQcow2() throws Exception {
        Path raw = dir.resolve("x.qcow2");
        Files.write(raw, new byte[4096]);
        assertThatThrownBy(() -> Qcow2Header.read(raw))
                .isInstanceOf(Qcow2Header.NotQcow2Exception.class)
                .hasMessage("Image is not in qcow2 format");
        Path tiny = dir.resolve("tiny.qcow2");
        Files.write(tiny, new byte[] {'Q', 'F', 'I'});
        assertThatThrownBy(() -> Qcow2Header.read(tiny)).isInstanceOf(Qcow2Header.NotQcow2Exception.class);
        Files.write(tiny, new byte[] {'Q', 'F', 'I', (byte) 0xfb, 0, 0});
        assertThatThrownBy(() -> Qcow2Header.read(tiny))
                .isInstanceOf(InvalidHeaderException.class)
                .hasMessageStartingWith("truncated");
    }

    /** Every prefix of an image, up to the end of its backing file name, is a truncated header. */
    @Test
    void truncatedAtEveryLength() throws Exception {
        Path img = dir.resolve("clone.qcow2");
        Tools.run(
                dir,
                "qemu-img",
                "create",
                "-q",
                "-f",
                "qcow2",
                "-u",
                "-F",
                "qcow2",
                "-b",
                "base-100-disk-0.qcow2",
                "-o",
                "extended_l2=on,cluster_size=128k",
                img.toString(),
                "1G");
        byte[] whole = Files.readAllBytes(img);
        Qcow2Header h = Qcow2Header.read(img);
        int end = (int) (ByteBuffer.wrap(whole).getLong(8) + h.backingFile().length());
        Path cut = dir.resolve("cut.qcow2");
        for (int n = 4; n < end; n++) {
            Files.write(cut, Arrays.copyOf(whole, n));
            int length = n;
            assertThatThrownBy(() -> Qcow2Header.read(cut))
                    .as("cut at %d bytes", length)
                    .isInstanceOf(InvalidHeaderException.class)
                    .hasMessageStartingWith("truncated");
        }
        Files.write(cut, Arrays.copyOf(whole, end));
        assertThat(Qcow2Header.read(cut).backingFile()).isEqualTo("base-100-disk-0.qcow2");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        // field, offset, width, value, message
        "version 1, 4, 4, 1, unsupported qcow2 version 1",
        "version 4, 4, 4, 4, unsupported qcow2 version 4",
        "cluster_bits 8, 20, 4, 8, unsupported cluster size: 2^8",
        "cluster_bits 22, 20, 4, 22, unsupported cluster size: 2^22",
        "cluster_bits 2^32-1, 20, 4, 4294967295, unsupported cluster size: 2^4294967295",
        "virtual size 2^63, 24, 8, -9223372036854775808, virtual size 9223372036854775808 is too large",
        "virtual size 2^62, 24, 8, 4611686018427387904, L1 table is too small for the virtual size",
        "virtual size -1, 24, 8, -1, virtual size 18446744073709551615 is too large",
        "encryption 3, 32, 4, 3, unsupported encryption method 3",
        "l1_size 2^32-1, 36, 4, 4294967295, active L1 table too large (4294967295 entries)",
        "l1_table_offset unaligned, 40, 8, 12345, invalid L1 table offset 12345",
        "l1_table_offset 2^64-1, 40, 8, -1, invalid L1 table offset 18446744073709551615",
        "refcount table 2^32-1 clusters, 56, 4, 4294967295, reference count table too large",
        "refcount table 0 clusters, 56, 4, 0, image does not contain a reference count table",
        "refcount_table_offset unaligned, 48, 8, 7, invalid reference count table offset 7",
        "snapshots 2^32-1, 60, 4, 4294967295, too many snapshots (4294967295)",
        "snapshots_offset unaligned, 64, 8, 3, invalid snapshot table offset 3",
        "header_length 8, 100, 4, 8, qcow2 header too short (8 bytes)",
        "header_length 2^32-1, 100, 4, 4294967295, qcow2 header exceeds cluster size",
        "refcount_order 7, 96, 4, 7, reference count entry width too large (order 7)",
        "backing offset past the first cluster, 8, 8, 65537, invalid backing file offset 65537",
        "backing offset 2^64-1, 8, 8, -1, invalid backing file offset 18446744073709551615",
        "backing name 1024 bytes, 16, 4, 1024, backing file name too long (1024 bytes)",
        "backing name 2^32-1 bytes, 16, 4, 4294967295, backing file name too long (4294967295 bytes)",
    })
    void hostileField(String field, int offset, int width, long value, String message) throws Exception {
        Path img = image("1G", "-b", "base.qcow2");
        patch(img, offset, width, value);
        assertThatThrownBy(() -> Qcow2Header.read(img))
                .isInstanceOf(InvalidHeaderException.class)
                .hasMessage(message);
    }

    @Test
    void backingNamePastTheEndOfTheFile() throws Exception {
        Path img = image("1G", "-b", "base.qcow2");
        patch(img, 8, 8, 60000); // within the first cluster, but the file is shorter
        byte[] bytes = Files.readAllBytes(img);
        Files.write(img, Arrays.copyOf(bytes, 4096));
        assertThatThrownBy(() -> Qcow2Header.read(img))
                .isInstanceOf(InvalidHeaderException.class)
                .hasMessageStartingWith("truncated: the backing file name");
    }

    @Test
    void extensionLongerThanTheSpaceBeforeTheBackingName() throws Exception {
        Path img = image("1G", "-b", "base.qcow2");
        int at = indexOf(
                Files.readAllBytes(img),
                ByteBuffer.allocate(4).putInt(Qcow2Header.EXT_BACKING_FORMAT).array());
        patch(img, at + 4, 4, 0xFFFFFFF0L);
        assertThatThrownBy(() -> Qcow2Header.read(img))
                .isInstanceOf(InvalidHeaderException.class)
                .hasMessage("header extension too large");
        patch(img, at + 4, 4, 16);
        assertThatThrownBy(() -> Qcow2Header.read(img))
                .isInstanceOf(InvalidHeaderException.class)
                .hasMessage("backing format extension too large (16 bytes)");
    }

    @Test
    void compressionTypeMustBeKnown() throws Exception {
        Path img = dir.resolve("z.qcow2");
        Tools.run(dir, "qemu-img", "create", "-q", "-f", "qcow2", "-o", "compression_type=zstd", img.toString(), "1G");
        patch(img, 104, 1, 7);
        assertThatThrownBy(() -> Qcow2Header.read(img))
                .isInstanceOf(InvalidHeaderException.class)
                .hasMessage("unknown compression type 7");
    }

    @Test
    void oddBackingNamesAreLeftToQemuImg() throws Exception {
        Path img = image("1G", "-b", "base.qcow2");
        long offset = ByteBuffer.wrap(Files.readAllBytes(img)).getLong(8);
        patch(img, (int) offset + 2, 1, 0xff); // not UTF-8
        assertThat(Qcow2Header.read(img).untrustedReason())
                .contains("a backing file name or format that is not UTF-8 text");
        patch(img, (int) offset + 2, 1, 0); // a NUL byte: QEMU would end the name there
        assertThat(Qcow2Header.read(img).untrustedReason())
                .contains("a backing file name or format that is not UTF-8 text");
    }

    /**
     * Random damage to the first 512 bytes of a real header: the reader either refuses it with
     * an {@link InvalidHeaderException} or returns a header whose fields are within QEMU's limits;
     * it never throws anything else and never reads more than the first cluster.
     */
    @Test
    void randomDamage() throws Exception {
        Path img = image("1G", "-b", "base.qcow2");
        byte[] whole = Files.readAllBytes(img);
        Random random = new Random(20240703);
        Path mutant = dir.resolve("mutant.qcow2");
        int parsed = 0;
        for (int round = 0; round < 3000; round++) {
            byte[] bytes = whole.clone();
            for (int k = 1 + random.nextInt(4); k > 0; k--) {
                bytes[4 + random.nextInt(508)] = (byte) random.nextInt(256);
            }
            Files.write(mutant, bytes);
            try {
                Qcow2Header h = Qcow2Header.read(mutant);
                parsed++;
                assertThat(h.clusterBits()).isBetween(9, 21);
                assertThat(h.virtualSize()).isNotNegative();
                assertThat(h.version()).isIn(2, 3);
                assertThat(h.headerLength()).isBetween(72L, (long) h.clusterSize());
                if (h.backingFile() != null) {
                    assertThat(h.backingFile().length()).isLessThanOrEqualTo(1023);
                }
                if (h.backingFormat() != null) {
                    assertThat(h.backingFormat().length()).isLessThanOrEqualTo(15);
                }
            } catch (InvalidHeaderException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            }
        }
        assertThat(parsed)
                .as("mutants that are still valid headers")
                .isPositive()
                .isLessThan(3000);
    }

    private Qcow2Header assertSameAsQemuImg(Path img) throws IOException, InvalidHeaderException {
        Qcow2Header h = Qcow2Header.read(img);
        JsonNode info = Tools.qemuImgInfo(img, "qcow2");
        assertThat(h.virtualSize()).isEqualTo(info.get("virtual-size").asLong());
        assertThat(h.clusterSize()).isEqualTo(info.get("cluster-size").asInt());
        assertThat(h.extendedL2())
                .isEqualTo(info.path("format-specific")
                        .path("data")
                        .path("extended-l2")
                        .asBoolean(false));
        assertThat(h.backingFile())
                .isEqualTo(
                        info.has("backing-filename")
                                ? info.get("backing-filename").asText()
                                : null);
        assertThat(h.backingFormat())
                .isEqualTo(
                        info.has("backing-filename-format")
                                ? info.get("backing-filename-format").asText()
                                : null);
        assertThat(h.version())
                .isEqualTo(
                        info.path("format-specific")
                                        .path("data")
                                        .path("compat")
                                        .asText()
                                        .equals("0.10")
                                ? 2
                                : 3);
        return h;
    }

    private Path image(String size, String... more) {
        Path img = dir.resolve("img-" + System.nanoTime() + ".qcow2");
        String[] argv = new String[] {"qemu-img", "create", "-q", "-f", "qcow2"};
        if (more.length > 0) {
            argv = concat(argv, new String[] {"-u", "-F", "qcow2"});
        }
        Tools.run(dir, concat(concat(argv, more), new String[] {img.toString(), size}));
        return img;
    }

    private static String[] concat(String[] a, String[] b) {
        String[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    /** Writes {@code value} big-endian into {@code width} bytes at {@code offset}. */
    private static void patch(Path img, int offset, int width, long value) throws IOException {
        byte[] bytes = Files.readAllBytes(img);
        for (int i = 0; i < width; i++) {
            bytes[offset + width - 1 - i] = (byte) (value >>> (8 * i));
        }
        Files.write(img, bytes);
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
