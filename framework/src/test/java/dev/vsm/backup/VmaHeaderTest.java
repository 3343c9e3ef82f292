package dev.vsm.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import dev.vsm.testing.VmaWriter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** {@link VmaHeader} on headers written by {@link VmaWriter}, good and hostile. */
class VmaHeaderTest {
    private static final String CONF =
            "boot: order=scsi0\nmemory: 2048\nscsi0: local:100/vm-100-disk-0.qcow2,size=4G\n";

    private static byte[] good() {
        return new VmaWriter()
                .config("qemu-server.conf", CONF)
                .config("qemu-server.fw", "[OPTIONS]\nenable: 1\n")
                .device("drive-scsi0", 4L << 30)
                .header();
    }

    private static VmaHeader read(byte[] bytes) throws IOException {
        return VmaHeader.read(new ByteArrayInputStream(bytes));
    }

    @Test
    void configsAreReadInHeaderOrder() throws IOException {
        VmaHeader h = read(good());
        assertThat(h.configs().keySet()).containsExactly("qemu-server.conf", "qemu-server.fw");
        assertThat(new String(h.configs().get("qemu-server.conf"), StandardCharsets.UTF_8))
                .isEqualTo(CONF);
    }

    @Test
    void readingStopsAtTheEndOfTheHeader() throws IOException {
        byte[] header = good();
        byte[] withData = Arrays.copyOf(header, header.length + 65536);
        ByteArrayInputStream in = new ByteArrayInputStream(withData);
        VmaHeader.read(in);
        assertThat(in.available()).isEqualTo(65536);
    }

    @Test
    void aCutHeaderIsRefused() {
        byte[] h = good();
        assertRefused(Arrays.copyOf(h, 100), "can't read vma header - got EOF");
        assertRefused(Arrays.copyOf(h, h.length - 1), "can't read vma header data - got EOF");
        assertRefused(new byte[0], "can't read vma header - got EOF");
    }

    @Test
    void anotherMagicIsRefused() {
        byte[] h = good();
        h[3] = 'E';
        assertRefused(h, "not a vma file - wrong magic number");
        assertRefused(
                "PK\3\4 a zip file, not a vma".getBytes(StandardCharsets.US_ASCII), "can't read vma header - got EOF");
    }

    @Test
    void absurdHeaderSizesAreRefusedBeforeAnythingIsAllocated() {
        assertRefused(changed(b -> b.putInt(56, 0xfffffff0)), "wrong vma header size 4294967280");
        assertRefused(changed(b -> b.putInt(56, 12288)), "wrong vma header size 12288");
        assertRefused(changed(b -> b.putInt(56, 0)), "wrong vma header size 0");
    }

    @Test
    void aWrongChecksumIsRefused() {
        byte[] h = good();
        h[12288 + 5] ^= 1; // a byte of a blob, after signing
        assertRefused(h, "wrong vma header checksum");
    }

    @Test
    void anotherVersionIsRefused() {
        assertRefused(VmaWriter.sign(changed(b -> b.putInt(4, 2))), "wrong vma version 2");
    }

    @Test
    void blobBuffersOutsideTheHeaderAreRefused() {
        assertRefused(VmaWriter.sign(changed(b -> b.putInt(48, 100))), "wrong vma blob buffer offset 100");
        assertRefused(
                VmaWriter.sign(changed(b -> b.putInt(48, 0xffffffff))), "wrong vma blob buffer size 4294967295/512");
        assertRefused(
                VmaWriter.sign(changed(b -> b.putInt(52, 0x7fffffff))), "wrong vma blob buffer size 12288/2147483647");
    }

    @Test
    void pointersToNoBlobAreRefused() {
        assertRefused(VmaWriter.sign(changed(b -> b.putInt(3068, 3))), "vma contains invalid data pointers");
        assertRefused(VmaWriter.sign(changed(b -> b.putInt(2044, 0x7ffffff0))), "vma contains invalid data pointers");
    }

    @Test
    void aBlobLongerThanTheBufferIsNoBlob() {
        // the first blob (the config's name) claims 65535 bytes: it and every blob after it are gone
        assertRefused(
                VmaWriter.sign(changed(b -> b.put(12289, (byte) 0xff).put(12290, (byte) 0xff))),
                "vma does not contain data");
    }

    @Test
    void aHeaderWithoutDevicesIsRefused() {
        assertRefused(new VmaWriter().config("qemu-server.conf", CONF).header(), "vma does not contain data");
    }

    private static byte[] changed(Consumer<ByteBuffer> change) {
        byte[] h = good();
        change.accept(ByteBuffer.wrap(h));
        return h;
    }

    private static void assertRefused(byte[] bytes, String message) {
        assertThatThrownBy(() -> read(bytes))
                .isInstanceOf(StorageException.class)
                .hasMessage(message)
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
    }
}
