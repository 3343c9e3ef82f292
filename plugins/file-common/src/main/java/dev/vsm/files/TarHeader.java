package dev.vsm.files;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One 512-byte header block of a POSIX tar archive (ustar, with GNU and pax extensions), read
 * without trusting it: every field is parsed from the block alone, nothing is allocated by what a
 * field announces. Used where vsm reads a tar archive in Java instead of with {@code tar}: an OVA
 * ({@link OvaArchive}) and a vzdump archive's guest configuration.
 */
public final class TarHeader {
    /** The size of a header and the unit member data is padded to. */
    public static final int BLOCK = 512;

    private final byte[] h;

    private TarHeader(byte[] block) {
        this.h = block;
    }

    /**
     * The header in {@code block} (512 bytes), or null when the block is all zeros: the end of the
     * archive.
     */
    public static TarHeader of(byte[] block) {
        if (block.length != BLOCK) {
            throw new IllegalArgumentException("a tar header has " + BLOCK + " bytes, not " + block.length);
        }
        for (byte b : block) {
            if (b != 0) {
                return new TarHeader(block.clone());
            }
        }
        return null;
    }

    /** Whether the stored checksum is the block's (false for anything that is no tar header). */
    public boolean checksumMatches() {
        long sum = 0;
        for (int i = 0; i < BLOCK; i++) {
            sum += (i >= 148 && i < 156) ? ' ' : (h[i] & 0xff);
        }
        Long stored = octal(148, 8);
        return stored != null && stored == sum;
    }

    /** The type flag: {@code '0'} or NUL a regular file, {@code '5'} a directory, {@code 'x'} pax, {@code 'L'} a GNU long name… */
    public char type() {
        return (char) (h[156] & 0xff);
    }

    /** Whether the member is a regular file ({@code '0'}, NUL or {@code '7'}). */
    public boolean isFile() {
        char t = type();
        return t == '0' || t == '\0' || t == '7';
    }

    /** The name in the header (with the ustar prefix), before any GNU long name or pax path replaces it. */
    public String name() {
        String name = cString(Arrays.copyOfRange(h, 0, 100));
        boolean ustar =
                h[257] == 'u' && h[258] == 's' && h[259] == 't' && h[260] == 'a' && h[261] == 'r' && h[262] == 0;
        String prefix = ustar ? cString(Arrays.copyOfRange(h, 345, 500)) : "";
        return prefix.isEmpty() ? name : prefix + "/" + name;
    }

    /** The link target in the header, before any GNU long link name or pax linkpath replaces it. */
    public String linkName() {
        return cString(Arrays.copyOfRange(h, 157, 257));
    }

    /**
     * The size of the member's data (octal, or GNU base-256), or -1 when the field holds none or
     * one beyond {@code Long.MAX_VALUE}.
     */
    public long size() {
        if ((h[124] & 0x80) != 0) { // GNU base-256
            long v = h[124] & 0x7f;
            for (int i = 125; i < 136; i++) {
                if (v > (Long.MAX_VALUE >> 8)) {
                    return -1;
                }
                v = (v << 8) | (h[i] & 0xff);
            }
            return v;
        }
        Long v = octal(124, 12);
        return v == null ? -1 : v;
    }

    /** Whether an old GNU sparse header ({@code 'S'}) is followed by extension blocks (and so is each extension block with this flag at 504). */
    public boolean gnuSparseExtended() {
        return type() == 'S' && h[482] != 0;
    }

    /** The bytes a member of {@code size} bytes takes in the archive: its data padded to whole blocks. */
    public static long padded(long size) {
        return (size + BLOCK - 1) / BLOCK * BLOCK;
    }

    /** The text of a NUL-terminated field (all of it without a NUL). */
    public static String cString(byte[] b) {
        int end = 0;
        while (end < b.length && b[end] != 0) {
            end++;
        }
        return new String(b, 0, end, StandardCharsets.UTF_8);
    }

    /** An octal field (leading spaces, trailing NUL or space); null when it is not one. */
    private Long octal(int off, int len) {
        int i = off;
        int end = off + len;
        while (i < end && h[i] == ' ') {
            i++;
        }
        long v = 0;
        int digits = 0;
        for (; i < end && h[i] >= '0' && h[i] <= '7'; i++) {
            v = v * 8 + (h[i] - '0');
            digits++;
        }
        for (; i < end; i++) {
            if (h[i] != 0 && h[i] != ' ') {
                return null;
            }
        }
        return digits == 0 ? null : v;
    }

    /**
     * Every record of a pax extended header's data ({@code <length> <keyword>=<value>\n}), a later
     * one replacing an earlier one of its keyword, as tar applies them; empty when any part of the
     * data is not such a record (a reader that skipped it would see other names than tar).
     */
    public static Optional<Map<String, String>> paxRecords(byte[] data) {
        Map<String, String> records = new LinkedHashMap<>();
        int i = 0;
        while (i < data.length) {
            int space = i;
            long len = 0;
            while (space < data.length && data[space] >= '0' && data[space] <= '9' && len <= data.length) {
                len = len * 10 + (data[space++] - '0');
            }
            if (space == i || space >= data.length || data[space] != ' ' || len > data.length - i) {
                return Optional.empty();
            }
            int end = i + (int) len; // one past the record's newline
            if (end <= space + 1 || data[end - 1] != '\n') {
                return Optional.empty();
            }
            String record = new String(data, space + 1, end - 1 - (space + 1), StandardCharsets.UTF_8);
            int eq = record.indexOf('=');
            if (eq <= 0) {
                return Optional.empty();
            }
            records.put(record.substring(0, eq), record.substring(eq + 1));
            i = end;
        }
        return Optional.of(records);
    }

    /**
     * The {@code path} and {@code size} records of a pax extended header ({@code 'x'}), which apply
     * to the member that follows it.
     *
     * @param path its path record, or null
     * @param size its size record, -1 when it is no number, or null
     */
    public record Pax(String path, Long size) {
        /** The records of a pax header's data; parsing stops at the first malformed record. */
        public static Pax parse(String text) {
            String path = null;
            Long size = null;
            int i = 0;
            while (i < text.length()) {
                int space = text.indexOf(' ', i);
                if (space < 0) {
                    break;
                }
                int len;
                try {
                    len = Integer.parseInt(text.substring(i, space));
                } catch (NumberFormatException e) {
                    break;
                }
                if (len < space - i + 2 || i + len > text.length()) { // shorter than its own length and newline
                    break;
                }
                String record = text.substring(space + 1, i + len - 1); // without the newline
                int eq = record.indexOf('=');
                if (eq > 0) {
                    String key = record.substring(0, eq);
                    String value = record.substring(eq + 1);
                    if (key.equals("path")) {
                        path = value;
                    } else if (key.equals("size")) {
                        try {
                            size = Long.parseLong(value);
                        } catch (NumberFormatException e) {
                            size = -1L;
                        }
                    }
                }
                i += len;
            }
            return new Pax(path, size);
        }
    }
}
