package dev.vsm.transfer;

import static java.util.Objects.requireNonNull;

import dev.vsm.files.TarHeader;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * An untrusted {@code tar+size} stream on its way to {@code tar -x} (as root, into a new subvol),
 * read header by header in Java ({@link TarHeader}) and passed on only once each header is
 * checked, so that tar never acts on one that is refused. The whole stream is refused (bad input)
 * when a header is not a tar header (checksum), when a member's name or a hard link's target is
 * absolute or has a {@code ..} component (in the header, a GNU long name or link, a pax
 * {@code path}, {@code linkpath} or {@code GNU.sparse.name}: whichever tar takes), when a member is
 * of a type a container's directory does not hold (only files, hard and symbolic links, devices,
 * directories and FIFOs, as pve's {@code tar -c} writes them), when a link, device, directory or
 * FIFO claims data, when the headers are ambiguous (two extended headers of a kind for one member,
 * a long name and a pax path, a pax header that is not all records, a global pax header), and when
 * the stream ends before the archive's end blocks or holds anything but zeros after them.
 *
 * <p>Symbolic links may point anywhere, as a container's do ({@code /etc/localtime}): GNU tar
 * makes a link whose target is absolute or has {@code ..} only once everything else is extracted,
 * a placeholder file standing in for it until then, so no member is written through one.
 */
final class TarStreamCheck extends OutputStream {
    private static final int BLOCK = TarHeader.BLOCK;
    /** A bound on the symbolic links remembered: more than a container's directory holds. */
    private static final int MAX_SYMLINKS = 1_000_000;
    /** A bound on an extended header's data (long names, pax records): more is no container's. */
    private static final int MAX_EXTENSION = 1 << 20;

    private enum State {
        HEADER,
        SPARSE_MAP,
        DATA,
        END
    }

    private final OutputStream tar;
    private final byte[] block = new byte[BLOCK];
    private int filled;
    private State state = State.HEADER;
    private long dataLeft;
    private long dataSize;
    private ByteArrayOutputStream extension;
    private char extensionType;
    private Map<String, String> pax;
    private String longName;
    private String longLink;
    private long members;
    /** The symbolic links the archive made so far, as normalized names: no member may be written through one. */
    private final Set<String> symlinks = new HashSet<>();

    private boolean tarGone;

    /** @param tar where the checked stream goes: {@code tar -x}'s standard input */
    TarStreamCheck(OutputStream tar) {
        this.tar = requireNonNull(tar, "tar");
    }

    /** Whether writing to tar failed: tar ended early, and its exit status tells why. */
    boolean tarGone() {
        return tarGone;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        int i = off;
        int end = off + len;
        while (i < end) {
            if (state == State.DATA) {
                int n = (int) Math.min(end - i, dataLeft);
                if (extension != null) { // its data, then its padding
                    extension.write(b, i, (int) Math.min(n, dataSize - extension.size()));
                }
                forward(b, i, n);
                i += n;
                dataLeft -= n;
                if (dataLeft == 0) {
                    endOfData();
                }
                continue;
            }
            int n = Math.min(end - i, BLOCK - filled);
            System.arraycopy(b, i, block, filled, n);
            filled += n;
            i += n;
            if (filled == BLOCK) {
                filled = 0;
                switch (state) {
                    case HEADER -> header();
                    case SPARSE_MAP -> sparseMap();
                    case END -> afterEnd();
                    case DATA -> throw new IllegalStateException();
                }
            }
        }
    }

    /**
     * The stream ended: refused unless it ended after the archive's end blocks (a stream cut
     * at a member's end would otherwise make a subvol with part of the container's files).
     */
    void finish() {
        if (state != State.END) {
            throw refused("it ends before the archive's end (truncated stream?)");
        }
        for (int i = 0; i < filled; i++) {
            if (block[i] != 0) {
                throw refused("it holds data after the archive's end");
            }
        }
    }

    private void header() throws IOException {
        TarHeader h = TarHeader.of(block);
        if (h == null) {
            if (extension != null || pax != null || longName != null || longLink != null) {
                throw refused("it ends after an extended header, without its member");
            }
            if (members == 0) {
                throw refused("it holds no member (not a subvol's stream)");
            }
            state = State.END;
            forward(block, 0, BLOCK);
            return;
        }
        if (!h.checksumMatches()) {
            throw refused("header %d is not a tar header (checksum mismatch)", members + 1);
        }
        char type = h.type();
        switch (type) {
            case 'x', 'L', 'K' -> extensionHeader(h, type);
            case '0', '\0', '7', 'S', '1', '2', '3', '4', '5', '6' -> member(h, type);
            default ->
                throw refused(
                        "member '%s' is of tar type '%s', which a subvol's stream does not hold",
                        shown(name(h)), printable(type));
        }
    }

    private void extensionHeader(TarHeader h, char type) throws IOException {
        boolean twice = switch (type) {
            case 'x' -> pax != null;
            case 'L' -> longName != null;
            default -> longLink != null;
        };
        if (twice) {
            throw refused("two extended headers of type '%s' for one member", type);
        }
        long size = h.size();
        if (size < 0 || size > MAX_EXTENSION) {
            throw refused("an extended header of type '%s' announces %d bytes", type, size);
        }
        forward(block, 0, BLOCK);
        extension = new ByteArrayOutputStream((int) size);
        extensionType = type;
        startData(size);
    }

    private void member(TarHeader h, char type) throws IOException {
        String name = name(h);
        checkName(name);
        checkName(h.name());
        if (pax != null && pax.containsKey("GNU.sparse.name")) {
            checkName(pax.get("GNU.sparse.name"));
        }
        if (type == '1') {
            String target = pax != null && pax.containsKey("linkpath")
                    ? pax.get("linkpath")
                    : longLink != null ? longLink : h.linkName();
            if (pax != null && pax.containsKey("linkpath") && longLink != null) {
                throw refused("hard link '%s' has both a GNU long link name and a pax linkpath", shown(name));
            }
            checkName(target);
            checkNotThroughLink(target, name);
        }
        long size = h.size();
        if (pax != null && pax.containsKey("size")) {
            try {
                size = Long.parseLong(pax.get("size"));
            } catch (NumberFormatException e) {
                size = -1;
            }
        }
        if (size < 0) {
            throw refused("member '%s' has no valid size", shown(name));
        }
        boolean data = type == '0' || type == '\0' || type == '7' || type == 'S';
        if (!data && size != 0) {
            throw refused("member '%s' (tar type '%s') claims %d bytes of data", shown(name), type, size);
        }
        String normalized = checkNotThroughLink(name, name);
        if (type == '2') {
            if (symlinks.size() >= MAX_SYMLINKS) {
                throw refused("it holds more than %d symbolic links", MAX_SYMLINKS);
            }
            symlinks.add(normalized);
        }
        pax = null;
        longName = null;
        longLink = null;
        members++;
        forward(block, 0, BLOCK);
        if (type == 'S' && h.gnuSparseExtended()) {
            dataSize = size;
            state = State.SPARSE_MAP;
            return;
        }
        startData(size);
    }

    /** An old GNU sparse member's extension blocks, each saying whether another follows (byte 504). */
    private void sparseMap() throws IOException {
        forward(block, 0, BLOCK);
        if (block[504] == 0) {
            startData(dataSize);
        }
    }

    private void startData(long size) {
        dataSize = size;
        dataLeft = TarHeader.padded(size);
        state = dataLeft > 0 ? State.DATA : State.HEADER;
        if (state == State.HEADER) {
            endOfData();
        }
    }

    private void endOfData() {
        state = State.HEADER;
        if (extension == null) {
            return;
        }
        byte[] text = extension.toByteArray();
        extension = null;
        switch (extensionType) {
            case 'x' -> {
                pax = TarHeader.paxRecords(text)
                        .orElseThrow(() -> refused("a pax header holds something other than records"));
                if (pax.containsKey("path") && longName != null) {
                    throw refused("a member has both a GNU long name and a pax path");
                }
            }
            case 'L' -> {
                longName = TarHeader.cString(text);
                if (pax != null && pax.containsKey("path")) {
                    throw refused("a member has both a GNU long name and a pax path");
                }
            }
            default -> longLink = TarHeader.cString(text);
        }
    }

    /** After the first end block: the rest of the end blocks and the record's padding, zeros only, kept from tar. */
    private void afterEnd() {
        for (byte b : block) {
            if (b != 0) {
                throw refused("it holds data after the archive's end");
            }
        }
    }

    /** The name tar gives the member: a pax path, else a GNU long name, else the header's. */
    private String name(TarHeader h) {
        if (pax != null && pax.containsKey("path")) {
            return pax.get("path");
        }
        return longName != null ? longName : h.name();
    }

    /** A name inside the subvol: not absolute, no {@code ..} component, no NUL. */
    private void checkName(String name) {
        if (name.startsWith("/") || name.indexOf('\0') >= 0) {
            throw refused("member name '%s' is absolute or holds NUL", shown(name));
        }
        for (String part : name.split("/")) {
            if (part.equals("..")) {
                throw refused("member name '%s' leads out of the subvol ('..')", shown(name));
            }
        }
    }

    /**
     * Refuses {@code path} (a member's name, or a hard link's target) when a directory on its way is
     * a symbolic link the archive made: {@code tar -c} of a directory never writes one, and tar
     * would follow it.
     *
     * @return the path normalized: no {@code .} or empty component, no leading {@code ./}
     */
    private String checkNotThroughLink(String path, String member) {
        StringBuilder prefix = new StringBuilder();
        for (String part : path.split("/")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (symlinks.contains(prefix.toString())) {
                throw refused(
                        "member '%s' goes through the symbolic link '%s' the stream made",
                        shown(member), shown(prefix.toString()));
            }
            prefix.append(prefix.length() == 0 ? "" : "/").append(part);
        }
        return prefix.toString();
    }

    private void forward(byte[] b, int off, int len) throws IOException {
        try {
            tar.write(b, off, len);
        } catch (IOException e) {
            tarGone = true;
            throw e;
        }
    }

    private static String shown(String name) {
        return VolumeId.printable(name);
    }

    private static String printable(char type) {
        return type >= 0x20 && type < 0x7f ? String.valueOf(type) : String.format("\\x%02x", (int) type);
    }

    private StorageException refused(String format, Object... args) {
        return StorageException.badInput("import: refusing the tar+size stream: %s", String.format(format, args));
    }
}
