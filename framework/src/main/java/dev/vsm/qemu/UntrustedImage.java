package dev.vsm.qemu;

import dev.vsm.qemu.Qcow2Header.InvalidHeaderException;
import dev.vsm.qemu.Qcow2Header.NotQcow2Exception;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * An image vsm did not make (a file given to {@code vsm import}, a volume of {@code import}
 * content, a disk inside an OVA, a qcow2 stream), inspected in Java before any qemu-img opens
 * it. Such an image may name other data for qemu to read — a backing file (a host file, a block
 * device, {@code json:{...}}, {@code nbd://...}), a qcow2 external data file, a vmdk extent or
 * parent — and converting it would copy that data into a new volume. So:
 *
 * <ul>
 *   <li>the format is told by its first bytes here, never by qemu-img's probe, and every qemu-img
 *       that reads the image is then given it with {@code -f};</li>
 *   <li>only formats vsm knows are taken: {@link #FORMATS}; anything else qemu would recognise
 *       (qcow version 1, LUKS, parallels, bochs, cloop, a vmdk version 3 sparse file) is refused,
 *       and data with no known header is raw;</li>
 *   <li>an image that refers to anything outside itself is refused: a qcow2 backing file or
 *       external data file (the feature bit or the header extension), a qcow2 incompatible
 *       feature vsm does not know, a qed backing file, a vmdk descriptor file (its data is in the
 *       files its extents name), a sparse vmdk whose embedded descriptor names a parent
 *       ({@code parentFileNameHint}, a {@code parentCID} other than {@code ffffffff}), an extent
 *       other than its own single sparse one, or whose zero capacity hands over to the descriptor's
 *       extents, a differencing vdi, vhdx (parent flag or parent locator) or vpc.</li>
 * </ul>
 *
 * <p>Every read is bounded (the first {@value #HEAD} bytes, a qcow2's first cluster, a vmdk
 * descriptor of at most {@value #MAX_DESCRIPTOR} bytes, the vhdx region and metadata tables), so a
 * truncated or hostile header is refused, never a huge read.
 */
public final class UntrustedImage {
    /** The formats vsm imports, by qemu's driver names: vsm's own image formats and qed, vdi, vhdx, vpc. */
    public static final Set<String> FORMATS =
            Set.of(VolumeFormat.RAW.id(), VolumeFormat.QCOW2.id(), "qed", VolumeFormat.VMDK.id(), "vdi", "vhdx", "vpc");

    static final int HEAD = 4096;
    /** qemu reads at most 1 MiB of a vmdk descriptor; a longer one is no real image's. */
    static final int MAX_DESCRIPTOR = 1 << 20;
    /** Where qemu looks for a sparse vmdk's parent ({@code parentFileNameHint}), and how much it reads there. */
    static final int VMDK_PARENT_LOOKUP_OFFSET = 512;

    static final int VMDK_PARENT_LOOKUP_BYTES = 20 * 512;

    private static final String ADVICE =
            "vsm imports only self-contained images: convert it into one first (qemu-img convert "
                    + "-O qcow2) where the data it names is meant to be read";
    private static final String FORMAT_ADVICE =
            "convert it to qcow2 or raw first, or pass --source-format raw to import its " + "bytes as a raw disk";

    private UntrustedImage() {}

    /**
     * Inspects the image at {@code path} and returns the format to read it as.
     *
     * @param format the format the caller names (from {@code --source-format} or a volume's name),
     *               or null to tell it from the image's first bytes
     * @param shown  the source as the message names it
     * @throws StorageException bad input, one line naming {@code shown}, what it refers to and
     *                          what to do, when the image is refused or cannot be read
     */
    public static String inspect(Path path, String format, String shown) {
        String name = VolumeId.printable(shown);
        if (format != null && !FORMATS.contains(format)) {
            throw StorageException.badInput(
                    "source '%s': format '%s' is not one vsm imports (it imports %s)",
                    name,
                    VolumeId.printable(format),
                    String.join(", ", FORMATS.stream().sorted().toList()));
        }
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            Image image = new Image(ch, ch.size());
            String probed = probe(image.head());
            String fmt = format != null ? format : probed;
            if (fmt == null) {
                throw new Refusal(unknownFormat(image.head()) + ", a format vsm does not import (it imports "
                        + String.join(", ", FORMATS.stream().sorted().toList()) + "): " + FORMAT_ADVICE);
            }
            if (format != null
                    && !VolumeFormat.RAW.is(format)
                    && !VolumeFormat.VMDK.is(format)
                    && !format.equals(probed)) {
                throw StorageException.badInput(
                        "source '%s' is not a disk image qemu-img can read as %s: it does not start with "
                                + "a %s header",
                        name, format, format);
            }
            check(image, fmt);
            return fmt;
        } catch (Refusal r) {
            throw StorageException.badInput("refusing source '%s': %s", name, r.getMessage());
        } catch (IOException e) {
            throw StorageException.badInput("source '%s' cannot be read: %s", name, e.getMessage());
        }
    }

    /** The refusal of one image: what it refers to and what to do. */
    static final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;

        Refusal(String message) {
            super(message);
        }
    }

    /** The format vsm reads an image of these first bytes as, or null for one it does not import. */
    static String probe(ByteBuffer head) {
        if (starts(head, 0, "QFI\u00fb")) {
            long version = head.limit() >= 8 ? Integer.toUnsignedLong(head.getInt(4)) : 3; // cut short: a broken qcow2
            return version == 2 || version == 3 ? VolumeFormat.QCOW2.id() : null;
        }
        if (starts(head, 0, "QED\0")) {
            return "qed";
        }
        if (starts(head, 0, "KDMV")) {
            return VolumeFormat.VMDK.id();
        }
        if (starts(head, 0, "vhdxfile")) {
            return "vhdx";
        }
        if (starts(head, 0, "conectix")) {
            return "vpc";
        }
        if (isVmdkDescriptor(head)) {
            return VolumeFormat.VMDK.id();
        }
        if (head.limit() >= 0x44
                && head.duplicate().order(ByteOrder.LITTLE_ENDIAN).getInt(0x40) == 0xbeda107f) {
            return "vdi";
        }
        return unknownFormat(head) == null ? VolumeFormat.RAW.id() : null;
    }

    /** What an image of a format vsm does not import is, or null when these bytes start no format qemu knows. */
    private static String unknownFormat(ByteBuffer head) {
        if (starts(head, 0, "QFI\u00fb")) {
            return "it is a qcow image of version " + (head.limit() >= 8 ? Integer.toUnsignedLong(head.getInt(4)) : 0);
        }
        if (starts(head, 0, "COWD")) {
            return "it is a vmdk version 3 (COWD) sparse image";
        }
        if (starts(head, 0, "LUKS\u00ba\u00be")) {
            return "it is a LUKS encrypted image";
        }
        if (starts(head, 0, "WithoutFreeSpace") || starts(head, 0, "WithouFreSpacExt")) {
            return "it is a parallels image";
        }
        if (starts(head, 0, "Bochs Virtual HD Image")) {
            return "it is a bochs image";
        }
        if (starts(head, 0, "#!/bin/sh\n#V2.0 Format\n")) {
            return "it is a cloop image";
        }
        return null;
    }

    private static void check(Image image, String format) throws Refusal, IOException {
        switch (format) {
            case "qed" -> checkQed(image.head());
            case "vdi" -> checkVdi(image.head());
            case "vhdx" -> checkVhdx(image);
            case "vpc" -> checkVpc(image.head());
            default ->
                check(image, VolumeFormat.fromId(format).orElseThrow(() -> new IllegalArgumentException(format)));
        }
    }

    private static void check(Image image, VolumeFormat format) throws Refusal, IOException {
        switch (format) {
            case RAW -> {
                /* data only */
            }
            case QCOW2 -> checkQcow2(image);
            case VMDK -> checkVmdk(image);
            case SUBVOL -> throw new IllegalArgumentException(format.id());
        }
    }

    private static void checkQcow2(Image image) throws Refusal, IOException {
        Qcow2Header h;
        try {
            h = Qcow2Header.read(new Qcow2Header.BoundedReader(image.channel, image.size));
        } catch (NotQcow2Exception e) {
            throw new Refusal("it is not a qcow2 image");
        } catch (InvalidHeaderException e) {
            throw new Refusal("it is not a valid qcow2 image (" + e.getMessage() + ")");
        }
        if (h.backingFile() != null && !h.backingFile().isEmpty()) {
            throw new Refusal("its qcow2 header names the backing file '" + VolumeId.printable(h.backingFile())
                    + "', data outside the image; " + ADVICE);
        }
        if ((h.incompatibleFeatures() & Qcow2Header.EXTERNAL_DATA_FILE) != 0 || h.dataFileExtension()) {
            throw new Refusal("its qcow2 header names an external data file, data outside the image; " + ADVICE);
        }
        long unknown = h.incompatibleFeatures()
                & ~(Qcow2Header.DIRTY
                        | Qcow2Header.CORRUPT
                        | Qcow2Header.EXTERNAL_DATA_FILE
                        | Qcow2Header.COMPRESSION_TYPE
                        | Qcow2Header.EXTENDED_L2);
        if (unknown != 0) {
            throw new Refusal(String.format(
                    "its qcow2 header has incompatible features vsm does not know (0x%x); %s", unknown, FORMAT_ADVICE));
        }
        if (h.cryptMethod() != 0) {
            throw new Refusal("it is an encrypted qcow2 image; decrypt it first (qemu-img convert with its secret)");
        }
    }

    private static void checkQed(ByteBuffer head) throws Refusal {
        if (head.limit() < 64) {
            throw new Refusal("it is not a valid qed image (its header is truncated)");
        }
        ByteBuffer h = head.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long features = h.getLong(16);
        long backingSize = Integer.toUnsignedLong(h.getInt(60));
        if ((features & 1) != 0 || backingSize != 0) {
            throw new Refusal("its qed header names a backing file, data outside the image; " + ADVICE);
        }
        if ((features & ~7L) != 0) {
            throw new Refusal(String.format(
                    "its qed header has features vsm does not know (0x%x); %s", features & ~7L, FORMAT_ADVICE));
        }
    }

    private static void checkVdi(ByteBuffer head) throws Refusal {
        if (head.limit() < 0x50) {
            throw new Refusal("it is not a valid vdi image (its header is truncated)");
        }
        long type = Integer.toUnsignedLong(
                head.duplicate().order(ByteOrder.LITTLE_ENDIAN).getInt(0x4c));
        if (type != 1 && type != 2) {
            throw new Refusal("it is a vdi image of type " + type
                    + (type == 4
                            ? " (differencing: its data continues in a parent " + "image)"
                            : type == 3 ? " (undo)" : "")
                    + "; only normal and fixed vdi images are imported: " + FORMAT_ADVICE);
        }
    }

    private static void checkVpc(ByteBuffer head) throws Refusal {
        if (head.limit() < 64) {
            throw new Refusal("it is not a valid vpc image (its footer is truncated)");
        }
        long type = Integer.toUnsignedLong(head.getInt(60));
        if (type == 4) {
            throw new Refusal(
                    "it is a differencing vhd (vpc) image, whose data continues in a parent image; " + ADVICE);
        }
        if (type != 2 && type != 3) {
            throw new Refusal("it is a vhd (vpc) image of unknown disk type " + type + "; " + FORMAT_ADVICE);
        }
    }

    // --- vhdx (MS-VHDX): the region table at 192 KiB, the metadata table, the file parameters ---

    private static final int VHDX_REGION_TABLE = 192 * 1024;
    private static final int VHDX_TABLE_BYTES = 64 * 1024;
    private static final int VHDX_MAX_ENTRIES = 2047;
    private static final byte[] VHDX_METADATA_REGION = guid("8B7CA206-4790-4B9A-B8FE-575F050F886E");
    private static final byte[] VHDX_FILE_PARAMETERS = guid("CAA16737-FA36-4D43-B3B6-33F0AA44E76B");
    private static final byte[] VHDX_PARENT_LOCATOR = guid("A8D35F2D-B30B-454D-ABF7-D3D84834AB0C");
    private static final int VHDX_HAS_PARENT = 2;

    private static void checkVhdx(Image image) throws Refusal, IOException {
        ByteBuffer regions = image.read(VHDX_REGION_TABLE, VHDX_TABLE_BYTES, "the vhdx region table")
                .order(ByteOrder.LITTLE_ENDIAN);
        if (!starts(regions, 0, "regi")) {
            throw new Refusal("it is not a valid vhdx image (no region table)");
        }
        long count = Integer.toUnsignedLong(regions.getInt(8));
        if (count > VHDX_MAX_ENTRIES) {
            throw new Refusal("it is not a valid vhdx image (" + count + " region table entries)");
        }
        Long metadata = null;
        long metadataLength = 0;
        for (int i = 0; i < count; i++) {
            int at = 16 + 32 * i;
            if (equalsAt(regions, at, VHDX_METADATA_REGION)) {
                metadata = regions.getLong(at + 16);
                metadataLength = Integer.toUnsignedLong(regions.getInt(at + 24));
            }
        }
        if (metadata == null || metadata < 0 || metadataLength < VHDX_TABLE_BYTES) {
            throw new Refusal("it is not a valid vhdx image (no metadata region)");
        }
        ByteBuffer table = image.read(metadata, VHDX_TABLE_BYTES, "the vhdx metadata table")
                .order(ByteOrder.LITTLE_ENDIAN);
        if (!starts(table, 0, "metadata")) {
            throw new Refusal("it is not a valid vhdx image (no metadata table)");
        }
        int entries = Short.toUnsignedInt(table.getShort(10));
        if (entries > VHDX_MAX_ENTRIES) {
            throw new Refusal("it is not a valid vhdx image (" + entries + " metadata entries)");
        }
        boolean parameters = false;
        for (int i = 0; i < entries; i++) {
            int at = 32 + 32 * i;
            if (equalsAt(table, at, VHDX_PARENT_LOCATOR)) {
                throw new Refusal(
                        "it is a differencing vhdx image (it has a parent locator): its data continues in a parent "
                                + "image; " + ADVICE);
            }
            if (equalsAt(table, at, VHDX_FILE_PARAMETERS)) {
                long offset = Integer.toUnsignedLong(table.getInt(at + 16));
                if (offset + 8 > metadataLength) {
                    throw new Refusal(
                            "it is not a valid vhdx image (its file parameters lie outside the metadata region)");
                }
                ByteBuffer p = image.read(metadata + offset, 8, "the vhdx file parameters")
                        .order(ByteOrder.LITTLE_ENDIAN);
                if ((p.getInt(4) & VHDX_HAS_PARENT) != 0) {
                    throw new Refusal(
                            "it is a differencing vhdx image (its file parameters say it has a parent): its data "
                                    + "continues in a parent image; " + ADVICE);
                }
                parameters = true;
            }
        }
        if (!parameters) {
            throw new Refusal("it is not a valid vhdx image (no file parameters)");
        }
    }

    /** A GUID as MS-VHDX stores it: the first three fields little-endian, the rest as written. */
    static byte[] guid(String text) {
        String hex = text.replace("-", "");
        byte[] b = new byte[16];
        for (int i = 0; i < 16; i++) {
            b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return new byte[] {
            b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
        };
    }

    // --- vmdk ---

    private static void checkVmdk(Image image) throws Refusal, IOException {
        ByteBuffer head = image.head();
        if (!starts(head, 0, "KDMV")) {
            if (starts(head, 0, "COWD")) {
                throw new Refusal(
                        "it is a vmdk version 3 (COWD) sparse image, a format vsm does not import: " + FORMAT_ADVICE);
            }
            VmdkDescriptor desc = VmdkDescriptor.parse(textOf(head));
            List<String> files = desc.extentFiles();
            if (files.isEmpty() && desc.createType() == null && !isVmdkDescriptor(head)) {
                throw new Refusal("it is not a vmdk image (no sparse header, no descriptor)");
            }
            throw new Refusal("it is a vmdk descriptor file: its data is in the files its extents name"
                    + (files.isEmpty()
                            ? ""
                            : " ('" + VolumeId.printable(files.get(0)) + "'" + (files.size() > 1 ? ", ..." : "") + ")")
                    + "; " + ADVICE);
        }
        if (head.limit() < 80) {
            throw new Refusal("it is not a valid vmdk image (its sparse header is truncated)");
        }
        ByteBuffer h = head.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long capacity = h.getLong(12);
        long descOffset = h.getLong(28);
        long descSize = h.getLong(36);
        if (capacity == 0) {
            throw new Refusal(
                    "it is a sparse vmdk of capacity 0, which hands its data over to the extents its embedded "
                            + "descriptor names; " + ADVICE);
        }
        List<ByteBuffer> descriptors = new ArrayList<>();
        if (descOffset != 0 || descSize != 0) {
            if (descOffset < 0
                    || descSize < 0
                    || descSize > MAX_DESCRIPTOR / 512
                    || descOffset > Long.MAX_VALUE / 512 - descSize) {
                throw new Refusal(
                        "it is not a valid vmdk image (an embedded descriptor of " + Long.toUnsignedString(descSize)
                                + " sectors at sector " + Long.toUnsignedString(descOffset) + " is beyond reason)");
            }
            descriptors.add(image.read(descOffset * 512, (int) (descSize * 512), "the embedded vmdk descriptor"));
        }
        long lookup = Math.max(0, Math.min(VMDK_PARENT_LOOKUP_BYTES, image.size - VMDK_PARENT_LOOKUP_OFFSET));
        descriptors.add(image.read(VMDK_PARENT_LOOKUP_OFFSET, (int) lookup, "the vmdk descriptor"));
        for (ByteBuffer d : descriptors) {
            VmdkDescriptor desc = VmdkDescriptor.parse(textOf(d));
            String problem = desc.problemInSparseFile();
            if (problem != null) {
                throw new Refusal("its embedded vmdk descriptor " + problem + "; " + ADVICE);
            }
        }
    }

    /**
     * A vmdk descriptor's text, read as qemu reads it and stricter: lines end at LF, CR or NUL;
     * a line whose first word is an access mode ({@code RW}, {@code RDONLY}, {@code NOACCESS}) is
     * an extent, whatever its quoting; {@code key = value} lines are settings; {@code #} starts a
     * comment, but a parent's name is found anywhere in the text, comments included (qemu finds
     * it with a plain substring search).
     */
    record VmdkDescriptor(String text, List<List<String>> extents, List<String> createTypes, List<String> parentCids) {
        static VmdkDescriptor parse(String text) {
            List<List<String>> extents = new ArrayList<>();
            List<String> createTypes = new ArrayList<>();
            List<String> parentCids = new ArrayList<>();
            for (String raw : text.split("[\r\n\0]")) {
                String line = raw.strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                List<String> words = words(line);
                String first = words.get(0).toUpperCase(Locale.ROOT);
                if (first.equals("RW") || first.equals("RDONLY") || first.equals("NOACCESS")) {
                    extents.add(words);
                    continue;
                }
                int eq = line.indexOf('=');
                if (eq > 0) {
                    String key = line.substring(0, eq).strip().toLowerCase(Locale.ROOT);
                    String value = unquote(line.substring(eq + 1).strip());
                    if (key.equals("createtype")) {
                        createTypes.add(value);
                    } else if (key.equals("parentcid")) {
                        parentCids.add(value);
                    }
                }
            }
            return new VmdkDescriptor(text, extents, createTypes, parentCids);
        }

        /** The first {@code createType} (the one qemu reads), or null. */
        String createType() {
            return createTypes.isEmpty() ? null : createTypes.get(0);
        }

        /** The file names the extents give (quoted or not), in order. */
        List<String> extentFiles() {
            List<String> files = new ArrayList<>();
            for (List<String> e : extents) {
                if (e.size() > 3) {
                    files.add(e.get(3));
                }
            }
            return files;
        }

        /** What in the descriptor of a sparse vmdk file refers to data outside it, or null. */
        String problemInSparseFile() {
            if (text.toLowerCase(Locale.ROOT).contains("parentfilenamehint")) {
                return "names a parent image (parentFileNameHint)";
            }
            for (String parentCid : parentCids) {
                if (!parentCid.equalsIgnoreCase("ffffffff")) {
                    return "names a parent image (parentCID=" + VolumeId.printable(parentCid) + ")";
                }
            }
            for (String createType : createTypes) {
                if (!createType.equalsIgnoreCase("monolithicSparse")
                        && !createType.equalsIgnoreCase("streamOptimized")) {
                    return "has createType '" + VolumeId.printable(createType)
                            + "' (only monolithicSparse and streamOptimized " + "are single files)";
                }
            }
            if (extents.size() > 1) {
                return "names " + extents.size() + " extents (a single sparse file has one)";
            }
            if (extents.size() == 1) {
                List<String> e = extents.get(0);
                String type = e.size() > 2 ? e.get(2).toUpperCase(Locale.ROOT) : "";
                if (!type.equals("SPARSE")) {
                    return "names a " + (type.isEmpty() ? "malformed" : VolumeId.printable(type)) + " extent"
                            + (e.size() > 3 ? " '" + VolumeId.printable(e.get(3)) + "'" : "")
                            + " (a single sparse file has one "
                            + "SPARSE extent, itself)";
                }
            }
            return null;
        }

        /** Words of a line; a double-quoted word keeps its spaces and loses its quotes. */
        private static List<String> words(String line) {
            List<String> words = new ArrayList<>();
            int i = 0;
            while (i < line.length()) {
                char c = line.charAt(i);
                if (Character.isWhitespace(c)) {
                    i++;
                } else if (c == '"') {
                    int end = line.indexOf('"', i + 1);
                    end = end < 0 ? line.length() : end;
                    words.add(line.substring(i + 1, end));
                    i = end + 1;
                } else {
                    int end = i;
                    while (end < line.length() && !Character.isWhitespace(line.charAt(end))) {
                        end++;
                    }
                    words.add(line.substring(i, end));
                    i = end;
                }
            }
            return words;
        }

        private static String unquote(String v) {
            return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
        }
    }

    /**
     * Whether these first bytes are a vmdk descriptor file as qemu's probe sees one: after blank
     * and comment lines, a {@code version=} line.
     */
    static boolean isVmdkDescriptor(ByteBuffer head) {
        for (String raw : textOf(head).split("\n", -1)) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            return line.matches("(?i)version\\s*=\\s*\"?\\d+\"?");
        }
        return false;
    }

    /** Bytes as text, one char per byte (names and keys of descriptors are ASCII). */
    private static String textOf(ByteBuffer b) {
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    private static boolean starts(ByteBuffer b, int at, String magic) {
        return equalsAt(b, at, magic.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static boolean equalsAt(ByteBuffer b, int at, byte[] expected) {
        if (at < 0 || b.limit() - at < expected.length) {
            return false;
        }
        for (int i = 0; i < expected.length; i++) {
            if (b.get(at + i) != expected[i]) {
                return false;
            }
        }
        return true;
    }

    /** The image's bytes: the first {@link #HEAD} (or fewer, for a shorter file), and bounded reads elsewhere. */
    private static final class Image {
        final FileChannel channel;
        final long size;
        private ByteBuffer head;

        Image(FileChannel channel, long size) {
            this.channel = channel;
            this.size = size;
        }

        ByteBuffer head() throws IOException {
            if (head == null) {
                head = readFully(0, (int) Math.min(size, HEAD));
            }
            return head.duplicate().order(ByteOrder.BIG_ENDIAN);
        }

        ByteBuffer read(long offset, int length, String what) throws IOException, Refusal {
            if (offset < 0 || length < 0 || offset > size - length) {
                throw new Refusal("it is truncated or its header is hostile: " + what + " (" + length
                        + " bytes at offset " + Long.toUnsignedString(offset) + ") lies past the end of the image ("
                        + size + " bytes)");
            }
            return readFully(offset, length);
        }

        private ByteBuffer readFully(long offset, int length) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(length);
            while (b.hasRemaining()) {
                if (channel.read(b, offset + b.position()) < 0) {
                    return ByteBuffer.wrap(Arrays.copyOf(b.array(), b.position()));
                }
            }
            return b.flip();
        }
    }
}
