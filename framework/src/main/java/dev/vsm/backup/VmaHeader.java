package dev.vsm.backup;

import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The header of a VMA archive (Proxmox's Virtual Machine Archive, what vzdump writes for VMs), read
 * as the {@code vma} tool reads it: the fixed part ({@code "VMA\0"}, version 1, uuid, time, MD5 of the
 * header with that field zeroed, blob buffer offset and size, header size; all big-endian), the
 * configuration name and data pointers (256 each, at bytes 2044 and 3068), the device table (256
 * entries of 32 bytes at 4096), then the blob buffer: blobs of a 2-byte little-endian length and
 * their data, addressed by their offset in the buffer (the first blob starts at offset 1, so 0
 * means none). Names are blobs ending in a NUL byte.
 *
 * <p>Everything is checked before it is used: a header that is cut short, has another magic,
 * version or checksum, a size beyond what 256 configurations and device names can fill, a blob
 * buffer outside the header, or pointers to no blob is refused (bad input) with the {@code vma}
 * tool's words.
 */
final class VmaHeader {
    /** The fixed part: everything before the blob buffer. */
    static final int FIXED_SIZE = 12288;
    /** The most a header can hold: the fixed part and 2 x 256 blobs of at most 64 KiB, with their lengths. */
    static final long MAX_SIZE = FIXED_SIZE + 2L * 256 * (2 + 0xffff) + 512;

    static final int CONFIG_NAMES = 2044;
    static final int CONFIG_DATA = 3068;
    static final int DEV_INFO = 4096;
    static final int MAX_CONFIGS = 256;
    private static final byte[] MAGIC = {'V', 'M', 'A', 0};

    private final Map<String, byte[]> configs;

    private VmaHeader(Map<String, byte[]> configs) {
        this.configs = configs;
    }

    /** The configuration blobs by name ({@code qemu-server.conf}, {@code qemu-server.fw}, ...), in header order. */
    public Map<String, byte[]> configs() {
        return configs;
    }

    /**
     * Reads the header from the start of {@code in} (no further than the header).
     *
     * @throws StorageException (bad input) when it is no valid VMA header
     */
    public static VmaHeader read(InputStream in) throws IOException {
        byte[] fixed = readFully(in, FIXED_SIZE, "can't read vma header - got EOF");
        if (!Arrays.equals(fixed, 0, 4, MAGIC, 0, 4)) {
            throw bad("not a vma file - wrong magic number");
        }
        ByteBuffer h = ByteBuffer.wrap(fixed);
        long headerSize = Integer.toUnsignedLong(h.getInt(56));
        if (headerSize <= FIXED_SIZE || headerSize > MAX_SIZE) {
            throw bad("wrong vma header size " + headerSize);
        }
        byte[] head = Arrays.copyOf(fixed, (int) headerSize);
        byte[] rest = readFully(in, (int) headerSize - FIXED_SIZE, "can't read vma header data - got EOF");
        System.arraycopy(rest, 0, head, FIXED_SIZE, rest.length);

        byte[] md5 = Arrays.copyOfRange(head, 32, 48);
        byte[] zeroed = head.clone();
        Arrays.fill(zeroed, 32, 48, (byte) 0);
        if (!MessageDigest.isEqual(md5, md5(zeroed))) {
            throw bad("wrong vma header checksum");
        }
        ByteBuffer b = ByteBuffer.wrap(head);
        long version = Integer.toUnsignedLong(b.getInt(4));
        if (version != 1) {
            throw bad("wrong vma version " + version);
        }
        long blobOffset = Integer.toUnsignedLong(b.getInt(48));
        long blobSize = Integer.toUnsignedLong(b.getInt(52));
        long start = blobOffset + 1;
        long end = blobOffset + blobSize;
        if (start <= FIXED_SIZE) {
            throw bad("wrong vma blob buffer offset " + blobOffset);
        }
        if (end > headerSize) {
            throw bad("wrong vma blob buffer size " + blobOffset + "/" + blobSize);
        }
        Map<Long, byte[]> blobs = new HashMap<>();
        long pos = start;
        while (pos + 2 <= end) {
            int size = (head[(int) pos] & 0xff) | (head[(int) pos + 1] & 0xff) << 8;
            if (pos + size + 2 <= end) {
                blobs.put(pos - blobOffset, Arrays.copyOfRange(head, (int) pos + 2, (int) pos + 2 + size));
            }
            pos += size + 2;
        }
        int devices = 0;
        for (int i = 1; i < 256; i++) {
            long namePtr = Integer.toUnsignedLong(b.getInt(DEV_INFO + 32 * i));
            long size = b.getLong(DEV_INFO + 32 * i + 8);
            if (size != 0 && string(blobs, namePtr) != null) {
                devices++;
            }
        }
        if (devices == 0) {
            throw bad("vma does not contain data");
        }
        Map<String, byte[]> configs = new LinkedHashMap<>();
        for (int i = 0; i < MAX_CONFIGS; i++) {
            long namePtr = Integer.toUnsignedLong(b.getInt(CONFIG_NAMES + 4 * i));
            long dataPtr = Integer.toUnsignedLong(b.getInt(CONFIG_DATA + 4 * i));
            if (namePtr == 0 || dataPtr == 0) {
                continue;
            }
            String name = string(blobs, namePtr);
            byte[] data = blobs.get(dataPtr);
            if (name == null || data == null) {
                throw bad("vma contains invalid data pointers");
            }
            configs.putIfAbsent(name, data);
        }
        return new VmaHeader(configs);
    }

    /** A blob that is a NUL-terminated string, or null. */
    private static String string(Map<Long, byte[]> blobs, long ptr) {
        byte[] blob = blobs.get(ptr);
        if (blob == null || blob.length == 0 || blob[blob.length - 1] != 0) {
            return null;
        }
        return new String(blob, 0, blob.length - 1, StandardCharsets.UTF_8);
    }

    static byte[] md5(byte[] data) {
        try {
            return MessageDigest.getInstance("MD5").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is missing from this Java runtime", e);
        }
    }

    private static byte[] readFully(InputStream in, int n, String eofMessage) throws IOException {
        byte[] buf = in.readNBytes(n);
        if (buf.length < n) {
            throw bad(eofMessage);
        }
        return buf;
    }

    private static StorageException bad(String message) {
        return StorageException.badInput("%s", message);
    }
}
