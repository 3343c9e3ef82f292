package dev.vsm.transfer;

import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** The 8-byte little-endian size in bytes that starts every pve volume stream (pve-storage's Plugin.pm). */
final class SizeHeader {
    /** How many bytes the header takes. */
    public static final int LENGTH = 8;
    /**
     * The largest size read: qemu's limit for any image (BDRV_MAX_LENGTH, 2^63-1 rounded down to
     * 512 bytes) in whole KiB, as volumes are allocated in KiB.
     */
    static final long MAX = Long.MAX_VALUE & ~1023L;

    /** The sector qemu-img rounds a raw file's size up to (BDRV_SECTOR_SIZE). */
    static final int SECTOR = 512;

    private SizeHeader() {}

    /**
     * The header pve's path-based plugins write for a file of other content than images (iso,
     * vztmpl, snippets, import): the size {@code qemu-img info -f raw} reports for it, its
     * {@code length} rounded up to whole sectors, while the data that follows is the file's
     * {@code length} bytes.
     */
    static long ofFile(long length) {
        return length % SECTOR == 0 ? length : length - length % SECTOR + SECTOR;
    }

    /** Writes {@code sizeBytes} as the header. */
    public static void write(OutputStream out, long sizeBytes) throws IOException {
        out.write(encode(sizeBytes));
    }

    static byte[] encode(long sizeBytes) {
        if (sizeBytes < 0) {
            throw new IllegalArgumentException("negative size: " + sizeBytes);
        }
        return ByteBuffer.allocate(LENGTH)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(sizeBytes)
                .array();
    }

    /**
     * Reads the header; fails (bad input) when the stream ends before it, with pve's
     * {@code import: no size found in export header, aborting.}, or when it is not a size vsm can
     * allocate (0, or beyond {@link #MAX}).
     */
    public static long read(InputStream in) throws IOException {
        return read(in, 1);
    }

    /**
     * As {@link #read(InputStream)}, taking sizes from {@code least}: 1 for a volume, 0 for a file
     * of other content (an empty snippet streams with the header 0, as pve streams it).
     */
    static long read(InputStream in, long least) throws IOException {
        byte[] b = in.readNBytes(LENGTH);
        if (b.length < LENGTH) {
            throw StorageException.badInput("import: no size found in export header, aborting.");
        }
        long size = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (size < least) {
            throw StorageException.badInput(
                    "import: the size header says %s bytes: not a volume size", Long.toUnsignedString(size));
        }
        if (size > MAX) {
            throw StorageException.badInput(
                    "import: the size header says %d bytes: more than any image can hold (at most %d)", size, MAX);
        }
        return size;
    }
}
