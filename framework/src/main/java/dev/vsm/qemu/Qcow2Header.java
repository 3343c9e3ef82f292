package dev.vsm.qemu;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

/**
 * The parts of a qcow2 header that {@code qemu-img info} reports, read from the file in Java
 * (the qcow2 specification, {@code docs/interop/qcow2.txt} in QEMU). Every field is checked the
 * way QEMU checks it when it opens an image, and every read is bounded by the file and by the
 * first cluster, so a truncated or hostile header is an {@link InvalidHeaderException}, never a
 * wrong answer or a huge read.
 *
 * <p>A header that is valid but that vsm does not interpret fully (encryption, an external data
 * file, incompatible features it does not know, a dirty or corrupt image) says so through
 * {@link #untrustedReason()}: then qemu-img must answer.
 *
 * @param version              2 or 3
 * @param headerLength         72 for version 2; at least 104 for version 3
 * @param virtualSize          the guest-visible size in bytes
 * @param clusterBits          log2 of the cluster size, 9 to 21
 * @param cryptMethod          0 none, 1 AES, 2 LUKS
 * @param incompatibleFeatures the incompatible feature bits (0 for version 2)
 * @param backingFile          the backing file name as recorded, or null
 * @param backingFormat        the backing format from the header extension, or null
 * @param dataFileExtension    whether an external data file name extension is present
 * @param oddNames             whether the backing file name or format holds a NUL byte or is not
 *                             UTF-8 (then {@code backingFile}/{@code backingFormat} are approximate)
 */
record Qcow2Header(
        int version,
        long headerLength,
        long virtualSize,
        int clusterBits,
        long cryptMethod,
        long incompatibleFeatures,
        String backingFile,
        String backingFormat,
        boolean dataFileExtension,
        boolean oddNames) {
    /** "QFI\xfb". */
    public static final int MAGIC = 0x514649fb;
    /** Incompatible feature bits (qcow2 spec). */
    public static final long DIRTY = 1,
            CORRUPT = 1 << 1,
            EXTERNAL_DATA_FILE = 1 << 2,
            COMPRESSION_TYPE = 1 << 3,
            EXTENDED_L2 = 1 << 4;

    private static final long KNOWN_INCOMPATIBLE =
            DIRTY | CORRUPT | EXTERNAL_DATA_FILE | COMPRESSION_TYPE | EXTENDED_L2;

    static final int V2_HEADER_LENGTH = 72;
    static final int V3_HEADER_LENGTH = 104;
    static final int MIN_CLUSTER_BITS = 9;
    static final int MAX_CLUSTER_BITS = 21;
    /** Extended L2 entries need 32 subclusters of at least 512 bytes. */
    static final int MIN_EXTENDED_L2_CLUSTER_BITS = 14;
    /** QEMU's limits: QCOW_MAX_L1_SIZE, QCOW_MAX_REFTABLE_SIZE, QCOW_MAX_SNAPSHOTS, the backing name buffer. */
    static final long MAX_L1_BYTES = 32L << 20;

    static final long MAX_REFTABLE_BYTES = 8L << 20;
    static final long MAX_SNAPSHOTS = 65536;
    static final int MAX_BACKING_NAME = 1023;
    static final int MAX_BACKING_FORMAT = 15;
    static final long SNAPSHOT_HEADER_BYTES = 40;

    static final int EXT_END = 0;
    static final int EXT_BACKING_FORMAT = 0xE2792ACA;
    static final int EXT_DATA_FILE = 0x44415441;

    /** A header that cannot be a qcow2 image's, or is cut short; the message says why. */
    public static class InvalidHeaderException extends Exception {
        private static final long serialVersionUID = 1L;

        InvalidHeaderException(String message) {
            super(message);
        }
    }

    /**
     * The file does not start with the qcow2 magic (a file shorter than the magic does not
     * either: QEMU reads past the end of a file as zeros, and says the same). The message is
     * QEMU's.
     */
    public static final class NotQcow2Exception extends InvalidHeaderException {
        private static final long serialVersionUID = 1L;

        NotQcow2Exception() {
            super("Image is not in qcow2 format");
        }
    }

    /** The cluster size in bytes. */
    public int clusterSize() {
        return 1 << clusterBits;
    }

    /** Whether the image has extended L2 entries (subclusters). */
    public boolean extendedL2() {
        return (incompatibleFeatures & EXTENDED_L2) != 0;
    }

    /**
     * Why this header should be read by qemu-img instead, or empty when this reader's answer is
     * the one qemu-img would give.
     */
    public Optional<String> untrustedReason() {
        long unknown = incompatibleFeatures & ~KNOWN_INCOMPATIBLE;
        if (unknown != 0) {
            return Optional.of(String.format("unknown incompatible features 0x%x", unknown));
        }
        if ((incompatibleFeatures & (DIRTY | CORRUPT)) != 0) {
            return Optional.of("the image is marked dirty or corrupt");
        }
        if ((incompatibleFeatures & EXTERNAL_DATA_FILE) != 0 || dataFileExtension) {
            return Optional.of("the image has an external data file");
        }
        if (cryptMethod != 0) {
            return Optional.of("the image is encrypted");
        }
        if (extendedL2() && clusterBits < MIN_EXTENDED_L2_CLUSTER_BITS) {
            return Optional.of("extended L2 entries with clusters below 16k");
        }
        if (virtualSize % 512 != 0) {
            return Optional.of("a virtual size that is not a multiple of 512");
        }
        if (oddNames) {
            return Optional.of("a backing file name or format that is not UTF-8 text");
        }
        return Optional.empty();
    }

    /** Reads and checks the header of the qcow2 image at {@code path}. */
    public static Qcow2Header read(Path path) throws IOException, InvalidHeaderException {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            return read(new BoundedReader(ch, ch.size(), HEAD_BUFFERS.get()));
        }
    }

    /**
     * Each thread's buffer for the first bytes of a file, reused from image to image (a listing
     * reads thousands of headers): nothing read from it outlives {@link #read(Path)}.
     */
    private static final ThreadLocal<ByteBuffer> HEAD_BUFFERS =
            ThreadLocal.withInitial(() -> ByteBuffer.allocate(BoundedReader.PREFETCH));

    static Qcow2Header read(BoundedReader file) throws IOException, InvalidHeaderException {
        if (file.size < 4 || file.read(0, 4, "the magic").getInt(0) != MAGIC) {
            throw new NotQcow2Exception();
        }
        ByteBuffer h = file.read(0, V2_HEADER_LENGTH, "the qcow2 header");
        long version = u32(h, 4);
        if (version != 2 && version != 3) {
            throw new InvalidHeaderException("unsupported qcow2 version " + version);
        }
        long backingOffset = h.getLong(8);
        long backingSize = u32(h, 16);
        long clusterBits = u32(h, 20);
        long size = h.getLong(24);
        long cryptMethod = u32(h, 32);
        long l1Size = u32(h, 36);
        long l1Offset = h.getLong(40);
        long refcountTableOffset = h.getLong(48);
        long refcountTableClusters = u32(h, 56);
        long snapshots = u32(h, 60);
        long snapshotsOffset = h.getLong(64);

        if (clusterBits < MIN_CLUSTER_BITS || clusterBits > MAX_CLUSTER_BITS) {
            throw new InvalidHeaderException("unsupported cluster size: 2^" + clusterBits);
        }
        long cluster = 1L << clusterBits;

        long incompatible = 0;
        long headerLength = V2_HEADER_LENGTH;
        long refcountOrder = 4;
        if (version == 3) {
            ByteBuffer v3 = file.read(0, V3_HEADER_LENGTH, "the qcow2 version 3 header");
            incompatible = v3.getLong(72);
            refcountOrder = u32(v3, 96);
            headerLength = u32(v3, 100);
            if (headerLength < V3_HEADER_LENGTH) {
                throw new InvalidHeaderException("qcow2 header too short (" + headerLength + " bytes)");
            }
            if (headerLength > cluster) {
                throw new InvalidHeaderException("qcow2 header exceeds cluster size");
            }
            if (refcountOrder > 6) {
                throw new InvalidHeaderException("reference count entry width too large (order " + refcountOrder + ")");
            }
            if ((incompatible & COMPRESSION_TYPE) != 0) {
                if (headerLength < V3_HEADER_LENGTH + 1) {
                    throw new InvalidHeaderException("compression type feature without a compression type field");
                }
                int type =
                        file.read(V3_HEADER_LENGTH, 1, "the compression type").get(0) & 0xff;
                if (type > 1) {
                    throw new InvalidHeaderException("unknown compression type " + type);
                }
            }
        }
        if (cryptMethod > 2) {
            throw new InvalidHeaderException("unsupported encryption method " + cryptMethod);
        }
        if (size < 0) {
            throw new InvalidHeaderException("virtual size " + Long.toUnsignedString(size) + " is too large");
        }
        checkTables(
                cluster,
                (incompatible & EXTENDED_L2) != 0,
                size,
                l1Size,
                l1Offset,
                refcountTableOffset,
                refcountTableClusters,
                snapshots,
                snapshotsOffset);

        if (backingOffset != 0 && Long.compareUnsigned(backingOffset, cluster) > 0) {
            throw new InvalidHeaderException("invalid backing file offset " + Long.toUnsignedString(backingOffset));
        }
        Extensions ext = readExtensions(file, headerLength, backingOffset != 0 ? backingOffset : cluster);

        Text backingFile = null;
        if (backingOffset != 0) {
            if (backingSize > Math.min(MAX_BACKING_NAME, cluster - backingOffset)) {
                throw new InvalidHeaderException("backing file name too long (" + backingSize + " bytes)");
            }
            backingFile = Text.of(file.read(backingOffset, (int) backingSize, "the backing file name"));
        }
        boolean oddNames =
                (backingFile != null && !backingFile.clean) || (ext.backingFormat != null && !ext.backingFormat.clean);
        return new Qcow2Header(
                (int) version,
                headerLength,
                size,
                (int) clusterBits,
                cryptMethod,
                incompatible,
                backingFile == null ? null : backingFile.value,
                ext.backingFormat == null ? null : ext.backingFormat.value,
                ext.dataFile,
                oddNames);
    }

    /** QEMU's checks of the table sizes and offsets (they bound what a reader of the image would allocate). */
    private static void checkTables(
            long cluster,
            boolean extendedL2,
            long size,
            long l1Size,
            long l1Offset,
            long refcountTableOffset,
            long refcountTableClusters,
            long snapshots,
            long snapshotsOffset)
            throws InvalidHeaderException {
        long entriesPerL2 = cluster / (extendedL2 ? 16 : 8);
        long bytesPerL1Entry = entriesPerL2 * cluster; // at most 2^21 / 8 * 2^21 = 2^39
        long l1Needed = size / bytesPerL1Entry + (size % bytesPerL1Entry == 0 ? 0 : 1);
        if (l1Size > MAX_L1_BYTES / 8) {
            throw new InvalidHeaderException("active L1 table too large (" + l1Size + " entries)");
        }
        if (l1Size < l1Needed) {
            throw new InvalidHeaderException("L1 table is too small for the virtual size");
        }
        if (l1Size > 0) {
            checkOffset("L1 table", l1Offset, l1Size * 8, cluster);
        }
        if (refcountTableClusters > MAX_REFTABLE_BYTES / cluster) {
            throw new InvalidHeaderException("reference count table too large");
        }
        if (refcountTableClusters == 0) {
            throw new InvalidHeaderException("image does not contain a reference count table");
        }
        checkOffset("reference count table", refcountTableOffset, refcountTableClusters * cluster, cluster);
        if (snapshots > MAX_SNAPSHOTS) {
            throw new InvalidHeaderException("too many snapshots (" + snapshots + ")");
        }
        checkOffset("snapshot table", snapshotsOffset, snapshots * SNAPSHOT_HEADER_BYTES, cluster);
    }

    private static void checkOffset(String table, long offset, long length, long cluster)
            throws InvalidHeaderException {
        if (offset < 0 || offset % cluster != 0 || offset > Long.MAX_VALUE - length) {
            throw new InvalidHeaderException("invalid " + table + " offset " + Long.toUnsignedString(offset));
        }
    }

    private record Extensions(Text backingFormat, boolean dataFile) {}

    /** The header extensions between the header and {@code end} (the backing file name, else the first cluster's end). */
    private static Extensions readExtensions(BoundedReader file, long start, long end)
            throws IOException, InvalidHeaderException {
        Text backingFormat = null;
        boolean dataFile = false;
        long offset = start;
        while (offset < end) {
            if (end - offset < 8) {
                throw new InvalidHeaderException("header extension too large");
            }
            ByteBuffer e = file.read(offset, 8, "a header extension");
            int type = e.getInt(0);
            long length = u32(e, 4);
            offset += 8;
            if (length > end - offset) {
                throw new InvalidHeaderException("header extension too large");
            }
            if (type == EXT_END) {
                break;
            }
            if (type == EXT_BACKING_FORMAT) {
                if (length > MAX_BACKING_FORMAT) {
                    throw new InvalidHeaderException("backing format extension too large (" + length + " bytes)");
                }
                backingFormat = Text.of(file.read(offset, (int) length, "the backing format"));
            } else if (type == EXT_DATA_FILE) {
                dataFile = true;
            }
            offset += (length + 7) & ~7L;
        }
        return new Extensions(backingFormat, dataFile);
    }

    private static long u32(ByteBuffer b, int at) {
        return Integer.toUnsignedLong(b.getInt(at));
    }

    /**
     * A name from the header. QEMU keeps such names as C strings (they end at a NUL byte) of
     * whatever bytes; {@code clean} says it is NUL-free UTF-8, the only kind vsm interprets.
     */
    private record Text(String value, boolean clean) {
        static Text of(ByteBuffer bytes) {
            byte[] ascii = new byte[bytes.remaining()];
            bytes.duplicate().get(ascii);
            boolean plain = true;
            for (byte b : ascii) {
                plain &= b > 0; // neither NUL nor beyond ASCII (a negative byte)
            }
            if (plain) {
                return new Text(new String(ascii, StandardCharsets.US_ASCII), true);
            }
            boolean nul = false;
            for (int i = bytes.position(); i < bytes.limit(); i++) {
                nul |= bytes.get(i) == 0;
            }
            try {
                String s = StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(bytes.duplicate())
                        .toString();
                return new Text(s, !nul);
            } catch (CharacterCodingException e) {
                return new Text(
                        StandardCharsets.ISO_8859_1.decode(bytes.duplicate()).toString(), false);
            }
        }
    }

    /**
     * Positional reads that never go past the end of the file (a short file is a truncated
     * header). The first {@link #PREFETCH} bytes, where qemu-img puts the header, its extensions
     * and the backing file name, are read with one system call.
     */
    static final class BoundedReader {
        static final int PREFETCH = 4096;
        private final FileChannel channel;
        private final long size;
        /** Where the first bytes go (null: a new buffer); {@code head} once read. */
        private final ByteBuffer headBuffer;

        private ByteBuffer head;

        BoundedReader(FileChannel channel, long size) {
            this(channel, size, null);
        }

        BoundedReader(FileChannel channel, long size, ByteBuffer headBuffer) {
            this.channel = channel;
            this.size = size;
            this.headBuffer = headBuffer;
        }

        ByteBuffer read(long offset, int length, String what) throws IOException, InvalidHeaderException {
            if (offset < 0 || length < 0 || offset > size - length) {
                throw new InvalidHeaderException(String.format(
                        "truncated: %s (%d bytes at offset %s) is past the end of the file (%d bytes)",
                        what, length, Long.toUnsignedString(offset), size));
            }
            if (offset + length <= PREFETCH) {
                if (head == null) {
                    int first = (int) Math.min(size, PREFETCH);
                    head = readFully(
                            headBuffer != null ? headBuffer.clear().limit(first) : ByteBuffer.allocate(first), 0, what);
                }
                return head.slice((int) offset, length);
            }
            return readFully(ByteBuffer.allocate(length), offset, what);
        }

        private ByteBuffer readFully(ByteBuffer b, long offset, String what)
                throws IOException, InvalidHeaderException {
            while (b.hasRemaining()) {
                int n = channel.read(b, offset + b.position());
                if (n < 0) {
                    throw new InvalidHeaderException("truncated: the file ended while reading " + what);
                }
            }
            return b.flip();
        }
    }
}
