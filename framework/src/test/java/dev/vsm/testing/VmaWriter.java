package dev.vsm.testing;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes the header of a VMA archive as Proxmox's VMA format describes it (big-endian fields:
 * magic {@code "VMA\0"}, version 1, uuid, ctime, MD5 over the header with that field zeroed, blob
 * buffer offset and size, header size; config name and data pointers at 2044 and 3068; the device
 * table at 4096; the blob buffer at 12288, whose blobs are a little-endian 2-byte length and the
 * data, the first one at offset 1). No extents: the header is what {@code extractconfig} reads.
 */
public final class VmaWriter {
    private final Map<String, byte[]> configs = new LinkedHashMap<>();
    private final Map<String, Long> devices = new LinkedHashMap<>();

    public VmaWriter config(String name, String data) {
        configs.put(name, data.getBytes(StandardCharsets.UTF_8));
        return this;
    }

    public VmaWriter device(String name, long size) {
        devices.put(name, size);
        return this;
    }

    /** The header bytes. */
    public byte[] header() {
        ByteArrayOutputStream blobs = new ByteArrayOutputStream();
        blobs.write(0); // offset 0 of the blob buffer means "none"
        byte[] head = new byte[12288];
        ByteBuffer h = ByteBuffer.wrap(head);
        int i = 0;
        for (Map.Entry<String, byte[]> c : configs.entrySet()) {
            h.putInt(2044 + 4 * i, blob(blobs, (c.getKey() + "\0").getBytes(StandardCharsets.UTF_8)));
            h.putInt(3068 + 4 * i, blob(blobs, c.getValue()));
            i++;
        }
        int dev = 1;
        for (Map.Entry<String, Long> d : devices.entrySet()) {
            h.putInt(4096 + 32 * dev, blob(blobs, (d.getKey() + "\0").getBytes(StandardCharsets.UTF_8)));
            h.putLong(4096 + 32 * dev + 8, d.getValue());
            dev++;
        }
        int blobSize = (blobs.size() + 511) / 512 * 512;
        int headerSize = 12288 + blobSize;
        byte[] out = Arrays.copyOf(head, headerSize);
        System.arraycopy(blobs.toByteArray(), 0, out, 12288, blobs.size());
        ByteBuffer o = ByteBuffer.wrap(out);
        o.put(0, new byte[] {'V', 'M', 'A', 0});
        o.putInt(4, 1);
        o.put(8, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
        o.putLong(24, 1585602700L);
        o.putInt(48, 12288);
        o.putInt(52, blobSize);
        o.putInt(56, headerSize);
        return sign(out);
    }

    /** Puts the MD5 of the header (with the checksum field zeroed) into it, as after changing a field. */
    public static byte[] sign(byte[] header) {
        int size = ByteBuffer.wrap(header).getInt(56);
        byte[] zeroed = Arrays.copyOf(header, Math.min(Math.max(size, 0), header.length));
        Arrays.fill(zeroed, 32, 48, (byte) 0);
        try {
            byte[] md5 = MessageDigest.getInstance("MD5").digest(zeroed);
            byte[] signed = header.clone();
            System.arraycopy(md5, 0, signed, 32, 16);
            return signed;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int blob(ByteArrayOutputStream blobs, byte[] data) {
        int offset = blobs.size();
        blobs.write(data.length & 0xff);
        blobs.write(data.length >> 8 & 0xff);
        blobs.writeBytes(data);
        return offset;
    }
}
