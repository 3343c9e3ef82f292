package dev.vsm.t.support;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A {@code tar+size} stream built header by header (ustar, with pax and GNU long-name headers), for
 * streams no {@code tar -c} writes: hostile names, links and types. Each header gets a valid checksum.
 */
public final class TarStream {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /** A stream whose size header is {@code size} (pve writes 0 for a subvol), its archive starting with {@code ./}. */
    public TarStream(long size) {
        out.writeBytes(ByteBuffer.allocate(8)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(size)
                .array());
        member("./", '5', "", new byte[0]);
    }

    public TarStream file(String name, String data) {
        return member(name, '0', "", data.getBytes(StandardCharsets.UTF_8));
    }

    public TarStream symlink(String name, String target) {
        return member(name, '2', target, new byte[0]);
    }

    public TarStream hardLink(String name, String target) {
        return member(name, '1', target, new byte[0]);
    }

    /** A pax extended header ({@code x}) of these records, for the member that follows. */
    public TarStream pax(Map<String, String> records) {
        StringBuilder text = new StringBuilder();
        records.forEach((k, v) -> {
            String rest = " " + k + "=" + v + "\n";
            int len = rest.length() + 1;
            while (Integer.toString(len).length() + rest.length() != len) {
                len++;
            }
            text.append(len).append(rest);
        });
        return member("./PaxHeaders/x", 'x', "", text.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** A GNU long name header ({@code L}) for the member that follows. */
    public TarStream longName(String name) {
        return member("././@LongLink", 'L', "", (name + "\0").getBytes(StandardCharsets.UTF_8));
    }

    /** A member of any type with {@code data}. */
    public TarStream member(String name, char type, String linkName, byte[] data) {
        byte[] h = new byte[512];
        put(h, 0, 100, name);
        put(h, 100, 8, "0000644");
        put(h, 108, 8, "0000000");
        put(h, 116, 8, "0000000");
        put(h, 124, 12, String.format("%011o", data.length));
        put(h, 136, 12, "00000000000");
        h[156] = (byte) type;
        put(h, 157, 100, linkName);
        put(h, 257, 6, "ustar");
        put(h, 263, 2, "00");
        for (int i = 148; i < 156; i++) {
            h[i] = ' ';
        }
        long sum = 0;
        for (byte b : h) {
            sum += b & 0xff;
        }
        put(h, 148, 8, String.format("%06o", sum));
        h[154] = 0;
        out.writeBytes(h);
        out.writeBytes(data);
        out.writeBytes(new byte[(512 - data.length % 512) % 512]);
        return this;
    }

    /** Raw bytes, as they are. */
    public TarStream raw(byte[] bytes) {
        out.writeBytes(bytes);
        return this;
    }

    /** The archive's two end blocks. */
    public TarStream end() {
        out.writeBytes(new byte[1024]);
        return this;
    }

    public byte[] bytes() {
        return out.toByteArray();
    }

    private static void put(byte[] h, int off, int len, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > len) {
            throw new IllegalArgumentException(s + " does not fit in " + len + " bytes");
        }
        System.arraycopy(b, 0, h, off, b.length);
    }
}
