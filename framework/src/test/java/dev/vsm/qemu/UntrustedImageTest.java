package dev.vsm.qemu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.qemu.UntrustedImage.VmdkDescriptor;
import dev.vsm.spi.StorageException;
import dev.vsm.testing.Tools;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The untrusted-image inspector against images made by the real qemu-img (taken, their format
 * told from their first bytes) and against hostile ones: backing and data files, vmdk descriptors
 * and embedded descriptors in every spelling, differencing vdi/vhdx/vpc, formats vsm does not
 * import, headers cut short, offsets past the end and random damage.
 */
class UntrustedImageTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({
        "raw, ''",
        "qcow2, ''",
        "qcow2, 'compat=0.10'",
        "qcow2, 'extended_l2=on,cluster_size=128k'",
        "vmdk, 'subformat=monolithicSparse'",
        "vmdk, 'subformat=streamOptimized'",
        "vdi, 'static=off'",
        "vdi, 'static=on'",
        "vhdx, 'subformat=dynamic'",
        "vhdx, 'subformat=fixed'",
        "vpc, 'subformat=dynamic'",
        "qed, ''",
    })
    void selfContainedImagesAreTakenAndTheirFormatToldFromTheirBytes(String format, String options) {
        Path img = create(format, options, "4M");
        assertThat(UntrustedImage.inspect(img, null, "x")).isEqualTo(format);
        assertThat(UntrustedImage.inspect(img, format, "x")).isEqualTo(format);
        assertThat(UntrustedImage.inspect(img, "raw", "x"))
                .as("raw reads any bytes")
                .isEqualTo("raw");
    }

    @Test
    void aFixedVhdIsRawDataWithAFooter() {
        Path img = create("vpc", "subformat=fixed", "4M");
        assertThat(UntrustedImage.inspect(img, null, "x")).isEqualTo("raw");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/etc/shadow",
                "base.raw",
                "../../x.raw",
                "json:{\"driver\":\"raw\",\"file\":{\"filename\":\"/etc/shadow\"}}",
                "nbd://127.0.0.1:10809/x",
                "/dev/sda",
                "https://example.com/x.raw"
            })
    void aQcow2BackingFileOfAnyKindIsRefused(String backing) {
        Path img = dir.resolve("b.qcow2");
        Tools.run(
                dir, "qemu-img", "create", "-q", "-f", "qcow2", "-u", "-F", "raw", "-b", backing, img.toString(), "1M");
        assertRefused(img, null, "names the backing file '" + backing.substring(0, Math.min(10, backing.length())));
        assertRefused(img, "qcow2", "names the backing file");
    }

    @Test
    void aQcow2ExternalDataFileIsRefusedByTheBitOrTheExtension() throws IOException {
        Path target = Files.write(dir.resolve("data"), new byte[1 << 20]);
        Path img = dir.resolve("d.qcow2");
        Tools.run(dir, "qemu-img", "create", "-q", "-f", "qcow2", "-o", "data_file=" + target, img.toString(), "1M");
        assertRefused(img, null, "names an external data file");
        patch(img, 72, 8, 0); // the feature bit cleared: the extension alone still refuses it
        assertRefused(img, null, "names an external data file");
    }

    @Test
    void unknownQcow2IncompatibleFeaturesAndEncryptionAreRefused() throws IOException {
        Path img = create("qcow2", "", "1M");
        patch(img, 72, 8, 1L << 40);
        assertRefused(img, null, "incompatible features vsm does not know (0x10000000000)");
        Path enc = create("qcow2", "", "1M");
        patch(enc, 32, 4, 2);
        assertRefused(enc, null, "encrypted");
    }

    @Test
    void aQcow2HeaderCutShortOrWithOffsetsPastTheEndIsRefused() throws IOException {
        Path img = create("qcow2", "", "1M");
        byte[] whole = Files.readAllBytes(img);
        for (int length : new int[] {5, 8, 71, 72, 103}) {
            Files.write(img, Arrays.copyOf(whole, length));
            assertRefused(img, null, "not a valid qcow2 image");
        }
        Files.write(img, whole);
        patch(img, 8, 8, 0x7fff_ffff_ffffL); // backing file offset beyond the first cluster
        assertRefused(img, null, "invalid backing file offset");
        Files.write(img, whole);
        patch(img, 4, 4, 1);
        assertRefused(img, null, "it is a qcow image of version 1, a format vsm does not import");
    }

    @Test
    void aQedBackingFileIsRefused() {
        Path img = dir.resolve("b.qed");
        Tools.run(
                dir,
                "qemu-img",
                "create",
                "-q",
                "-f",
                "qed",
                "-u",
                "-F",
                "raw",
                "-b",
                "/etc/shadow",
                img.toString(),
                "1M");
        assertRefused(img, null, "its qed header names a backing file");
    }

    @Test
    void differencingVdiVpcAndVhdxAreRefused() throws IOException {
        Path vdi = create("vdi", "", "1M");
        patchLe(vdi, 0x4c, 4);
        assertRefused(vdi, null, "vdi image of type 4 (differencing");

        Path vpc = create("vpc", "subformat=dynamic", "1M");
        patch(vpc, 60, 4, 4);
        assertRefused(vpc, null, "differencing vhd (vpc) image");

        Path vhdx = create("vhdx", "", "4M");
        long parameters = vhdxMetadataItem(vhdx, UntrustedImage.guid("CAA16737-FA36-4D43-B3B6-33F0AA44E76B"));
        ByteBuffer flags = read(vhdx, parameters + 4, 4).order(ByteOrder.LITTLE_ENDIAN);
        patchLe(vhdx, parameters + 4, flags.getInt(0) | 2);
        assertRefused(vhdx, null, "differencing vhdx image (its file parameters say it has a parent)");

        Path locator = create("vhdx", "", "4M");
        long entry = vhdxOtherMetadataEntry(locator, UntrustedImage.guid("CAA16737-FA36-4D43-B3B6-33F0AA44E76B"));
        byte[] bytes = Files.readAllBytes(locator); // another item's id turned into the parent locator's
        System.arraycopy(UntrustedImage.guid("A8D35F2D-B30B-454D-ABF7-D3D84834AB0C"), 0, bytes, (int) entry, 16);
        Files.write(locator, bytes);
        assertRefused(locator, null, "it has a parent locator");

        Path cut = create("vhdx", "", "4M");
        Files.write(cut, Arrays.copyOf(Files.readAllBytes(cut), 200 * 1024));
        assertRefused(cut, null, "lies past the end of the image");
    }

    @Test
    void formatsVsmDoesNotImportAreRefusedNotProbedByQemu() throws IOException {
        for (String magic : List.of(
                "LUKS\u00ba\u00be",
                "COWD",
                "WithoutFreeSpace",
                "Bochs Virtual HD Image",
                "#!/bin/sh\n#V2.0 Format\nmodprobe cloop")) {
            Path img =
                    Files.write(dir.resolve("odd"), Arrays.copyOf(magic.getBytes(StandardCharsets.ISO_8859_1), 4096));
            assertRefused(img, null, "a format vsm does not import");
        }
        Path raw = create("raw", "", "1M");
        for (String driver :
                List.of("luks", "nbd", "file", "host_device", "blkdebug", "quorum", "vvfat", "qcow", "json")) {
            assertRefused(raw, driver, "format '" + driver + "' is not one vsm imports");
        }
        assertThatThrownBy(() -> UntrustedImage.inspect(raw, "qcow2", "x"))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining(
                        "is not a disk image qemu-img can read as qcow2: it does not start with a qcow2 header");
    }

    @Test
    void aVmdkDescriptorFileIsRefusedAndNamesItsExtent() throws IOException {
        for (String text : List.of(
                "# Disk DescriptorFile\nversion=1\ncreateType=\"monolithicFlat\"\nRW 2048 FLAT \"/etc/shadow\" 0\n",
                "\n  # comment\r\nversion=1\r\ncreateType=\"vmfs\"\r\nRW 2048 VMFS \"/etc/shadow\"\r\n",
                "version=3\ncreateType=\"twoGbMaxExtentSparse\"\nRDONLY 100 SPARSE \"/etc/shadow\"\nRW 100 SPARSE \"b.vmdk\"\n",
                "version=1\nRW\t2048\tFLAT\t\"/etc/shadow\"\t0\n")) {
            Path img = Files.writeString(dir.resolve("d.vmdk"), text);
            assertRefused(
                    img,
                    null,
                    "it is a vmdk descriptor file: its data is in the files its extents name ('/etc/shadow'");
            assertRefused(img, "vmdk", "vmdk descriptor file");
        }
        // no version line: qemu's probe calls it raw, but -f vmdk would still open its extents
        Path unprobed = Files.writeString(
                dir.resolve("u.vmdk"), "createType=\"monolithicFlat\"\nRW 8 FLAT \"/etc/shadow\" 0\n");
        assertRefused(unprobed, "vmdk", "('/etc/shadow')");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "parentFileNameHint=\"/etc/shadow.vmdk\"",
                "# parentFileNameHint=\"/etc/shadow.vmdk\"",
                "PARENTFILENAMEHINT = \"/etc/shadow.vmdk\"",
                "parentCID=12345678",
                "RW 8 FLAT \"/etc/shadow\" 0",
                "RW 8 ZERO",
                "RW 8 VMFS \"x.vmdk\"",
                "RDONLY 8 SPARSE \"other.vmdk\"",
                "createType=\"twoGbMaxExtentSparse\"\r",
            })
    void aSparseVmdkWhoseEmbeddedDescriptorNamesOtherDataIsRefused(String line) throws IOException {
        Path img = create("vmdk", "", "1M");
        embed(img, line);
        assertRefused(img, null, "its embedded vmdk descriptor");
    }

    @Test
    void aSparseVmdkHeaderThatHandsOverOrPointsAwayIsRefused() throws IOException {
        Path img = create("vmdk", "", "1M");
        byte[] whole = Files.readAllBytes(img);
        patchLe64(img, 12, 0); // capacity 0: qemu opens the embedded descriptor's extents instead
        assertRefused(img, null, "capacity 0");
        Files.write(img, whole);
        patchLe64(img, 36, 1L << 40); // a descriptor of absurd length
        assertRefused(img, null, "beyond reason");
        Files.write(img, whole);
        patchLe64(img, 28, (whole.length / 512) + 10); // a descriptor past the end
        assertRefused(img, null, "lies past the end of the image");
        Files.write(img, whole);
        patchLe64(img, 28, -1);
        assertRefused(img, null, "beyond reason");
        Files.write(img, Arrays.copyOf(whole, 40));
        assertRefused(img, null, "truncated");
    }

    @Test
    void theDescriptorParserReadsQuotingLineEndsAndComments() {
        VmdkDescriptor d =
                VmdkDescriptor.parse("# Disk DescriptorFile\r\nversion=1\r\n  createType = \"streamOptimized\"  \r\n"
                        + "parentCID=ffffffff\n# RW 8 FLAT \"/commented\" 0\nRW 2048 SPARSE \"with space.vmdk\"\0RW 8 FLAT relative.img 0\n"
                        + "rw 8 zero\n\tNOACCESS 8 FLAT \"tab.img\" 0\nddb.adapterType = \"ide\"\n");
        assertThat(d.createType()).isEqualTo("streamOptimized");
        assertThat(d.parentCids()).containsExactly("ffffffff");
        assertThat(d.extentFiles()).containsExactly("with space.vmdk", "relative.img", "tab.img");
        assertThat(d.extents()).hasSize(4);
        assertThat(d.problemInSparseFile()).isEqualTo("names 4 extents (a single sparse file has one)");
        assertThat(VmdkDescriptor.parse("createType=\"monolithicSparse\"\nRW 8 SPARSE \"x.vmdk\"\n")
                        .problemInSparseFile())
                .isNull();
        assertThat(VmdkDescriptor.parse("RW 8 \"FLAT\" \"x\" 0\n").problemInSparseFile())
                .contains("FLAT extent 'x'");
        assertThat(VmdkDescriptor.parse("RW\n").problemInSparseFile()).contains("malformed extent");
    }

    @ParameterizedTest
    @ValueSource(strings = {"qcow2", "vmdk", "vdi", "vhdx", "vpc", "qed"})
    void randomDamageIsRefusedOrTakenNeverAnotherError(String format) throws IOException {
        Path img = create(format, "", "1M");
        byte[] whole = Files.readAllBytes(img);
        Random random = new Random(format.hashCode());
        for (int round = 0; round < 300; round++) {
            byte[] damaged = whole.clone();
            int flips = 1 + random.nextInt(16);
            for (int i = 0; i < flips; i++) {
                int at = 4 + random.nextInt(Math.min(damaged.length, 300 * 1024) - 4); // keep the magic
                damaged[at] = (byte) random.nextInt(256);
            }
            Files.write(img, random.nextInt(4) == 0 ? Arrays.copyOf(damaged, random.nextInt(damaged.length)) : damaged);
            try {
                UntrustedImage.inspect(img, null, "x");
            } catch (StorageException e) {
                assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT);
                assertThat(e.getMessage()).doesNotContain("\n");
            }
        }
    }

    // --- helpers ---

    private Path create(String format, String options, String size) {
        Path img = dir.resolve("img-" + System.nanoTime() + "." + format);
        if (options.isEmpty()) {
            Tools.run(dir, "qemu-img", "create", "-q", "-f", format, img.toString(), size);
        } else {
            Tools.run(dir, "qemu-img", "create", "-q", "-f", format, "-o", options, img.toString(), size);
        }
        return img;
    }

    private static void assertRefused(Path img, String format, String message) {
        assertThatThrownBy(() -> UntrustedImage.inspect(img, format, "img"))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(((StorageException) e).kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    /** Adds a line to the descriptor qemu-img embeds at byte 512 of a sparse vmdk. */
    private static void embed(Path vmdk, String line) throws IOException {
        byte[] bytes = Files.readAllBytes(vmdk);
        int end = 512;
        while (bytes[end] != 0) {
            end++;
        }
        String text = new String(bytes, 512, end - 512, StandardCharsets.ISO_8859_1);
        String changed = text.replace("createType=", line + "\ncreateType=");
        assertThat(changed).isNotEqualTo(text);
        byte[] b = changed.getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(b, 0, bytes, 512, b.length);
        Files.write(vmdk, bytes);
    }

    private static void patch(Path file, long at, int width, long value) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        for (int i = 0; i < width; i++) {
            bytes[(int) at + i] = (byte) (value >>> (8 * (width - 1 - i)));
        }
        Files.write(file, bytes);
    }

    private static void patchLe(Path file, long at, int value) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt((int) at, value);
        Files.write(file, bytes);
    }

    private static void patchLe64(Path file, long at, long value) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong((int) at, value);
        Files.write(file, bytes);
    }

    private static ByteBuffer read(Path file, long at, int length) throws IOException {
        return ByteBuffer.wrap(Arrays.copyOfRange(Files.readAllBytes(file), (int) at, (int) at + length));
    }

    /** The file offset of a metadata table entry whose item is not {@code item}. */
    private static long vhdxOtherMetadataEntry(Path vhdx, byte[] item) throws IOException {
        long metadata = vhdxMetadataRegion(vhdx);
        ByteBuffer table = read(vhdx, metadata, 64 * 1024).order(ByteOrder.LITTLE_ENDIAN);
        int entries = Short.toUnsignedInt(table.getShort(10));
        for (int i = 0; i < entries; i++) {
            if (!Arrays.equals(Arrays.copyOfRange(table.array(), 32 + 32 * i, 48 + 32 * i), item)) {
                return metadata + 32 + 32L * i;
            }
        }
        throw new AssertionError("no other item");
    }

    /** The file offset of the data of the metadata item with this id. */
    private static long vhdxMetadataItem(Path vhdx, byte[] item) throws IOException {
        long metadata = vhdxMetadataRegion(vhdx);
        ByteBuffer table = read(vhdx, metadata, 64 * 1024).order(ByteOrder.LITTLE_ENDIAN);
        int entries = Short.toUnsignedInt(table.getShort(10));
        for (int i = 0; i < entries; i++) {
            if (Arrays.equals(Arrays.copyOfRange(table.array(), 32 + 32 * i, 48 + 32 * i), item)) {
                return metadata + Integer.toUnsignedLong(table.getInt(32 + 32 * i + 16));
            }
        }
        throw new AssertionError("no such item");
    }

    private static long vhdxMetadataRegion(Path vhdx) throws IOException {
        ByteBuffer regions = read(vhdx, 192 * 1024, 64 * 1024).order(ByteOrder.LITTLE_ENDIAN);
        byte[] id = UntrustedImage.guid("8B7CA206-4790-4B9A-B8FE-575F050F886E");
        for (int i = 0; i < regions.getInt(8); i++) {
            if (Arrays.equals(Arrays.copyOfRange(regions.array(), 16 + 32 * i, 32 + 32 * i), id)) {
                return regions.getLong(16 + 32 * i + 16);
            }
        }
        throw new AssertionError("no metadata region");
    }
}
