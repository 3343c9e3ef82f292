package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An OVA: a POSIX tar archive (ustar, with pax and GNU long-name headers), read in Java without
 * a {@code tar} process and without trusting it. Reading checks every header (checksum, size,
 * that the data lies within the file) and refuses the archive as a whole when one member is
 * hostile: a name that is absolute or has a {@code ..} component, a link, a device or anything
 * but a regular file or directory. Only headers are read (positional reads, no data), so listing
 * a large OVA is cheap.
 */
public final class OvaArchive {
    private static final int BLOCK = TarHeader.BLOCK;
    /** More members than any OVA has: bounds the work on a hostile archive. */
    private static final int MAX_MEMBERS = 10_000;

    /**
     * A regular file in the archive.
     *
     * @param name   its path in the archive, without a leading {@code ./}
     * @param offset where its data starts in the OVA file
     * @param size   its size in bytes
     */
    public record Member(String name, long offset, long size) {
        public Member {
            requireNonNull(name, "name");
        }
    }

    private final Path file;
    private final List<Member> members;

    private OvaArchive(Path file, List<Member> members) {
        this.file = file;
        this.members = List.copyOf(members);
    }

    /** Reads and checks the archive's headers; bad input (one line naming the OVA) when it is not acceptable. */
    public static OvaArchive read(Path ova) {
        try (FileChannel ch = FileChannel.open(ova, StandardOpenOption.READ)) {
            return read(ova, ch);
        } catch (IOException e) {
            throw StorageException.badInput("cannot read OVA '%s': %s", shown(ova), e.getMessage());
        }
    }

    /** As {@link #read(Path)}, from the OVA open as {@code ch} ({@code ova} names it in messages). */
    public static OvaArchive read(Path ova, FileChannel ch) {
        try {
            return new OvaArchive(ova, new Reader(ova, ch).members());
        } catch (IOException e) {
            throw StorageException.badInput("cannot read OVA '%s': %s", shown(ova), e.getMessage());
        }
    }

    public Path file() {
        return file;
    }

    /** The regular files, in archive order. */
    public List<Member> members() {
        return members;
    }

    /** The regular file of that name (the last one when the archive holds it twice, as tar extracts it). */
    public Optional<Member> member(String name) {
        Member found = null;
        for (Member m : members) {
            if (m.name().equals(name)) {
                found = m;
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * Copies a member's data from the OVA open as {@code in} (the channel {@link #read(Path, FileChannel)}
     * read, never the file reopened by name) to {@code out}, and syncs it.
     */
    public void extract(Member member, FileChannel in, FileChannel out) {
        try {
            long done = 0;
            while (done < member.size()) {
                long n = in.transferTo(member.offset() + done, member.size() - done, out);
                if (n <= 0) {
                    throw new IOException("the archive ended inside member '" + member.name() + "'");
                }
                done += n;
            }
            out.force(true);
        } catch (IOException e) {
            throw StorageException.failed(
                    e, "cannot extract '%s' from OVA '%s': %s", shown(member.name()), shown(file), e.getMessage());
        }
    }

    private static String shown(Object o) {
        return VolumeId.printable(o.toString());
    }

    /** One pass over the headers. */
    private static final class Reader {
        private final Path ova;
        private final FileChannel ch;
        private final long length;

        Reader(Path ova, FileChannel ch) throws IOException {
            this.ova = ova;
            this.ch = ch;
            this.length = ch.size();
        }

        List<Member> members() throws IOException {
            List<Member> found = new ArrayList<>();
            long pos = 0;
            String longName = null;
            Long paxSize = null;
            int entries = 0;
            while (true) {
                if (pos + BLOCK > length) {
                    if (pos == length && entries > 0) {
                        return found; // no end-of-archive blocks: tolerated, as tar does
                    }
                    throw bad("it is truncated (the file ends inside a tar header at byte %d)", pos);
                }
                TarHeader h = TarHeader.of(readBlock(pos));
                if (h == null) {
                    if (entries == 0) {
                        throw bad("it is not a tar archive (it starts with a zero block)");
                    }
                    return found;
                }
                if (++entries > MAX_MEMBERS) {
                    throw bad("it has more than %d members", MAX_MEMBERS);
                }
                if (!h.checksumMatches()) {
                    throw bad(
                            "header %d (at byte %d) is corrupt or this is not a tar archive (checksum mismatch)",
                            entries, pos);
                }
                char type = h.type();
                boolean file = h.isFile();
                long size = file && paxSize != null ? paxSize : h.size(); // pax: sizes beyond ustar's 8 GiB
                if (size < 0) {
                    throw bad("member %d (at byte %d) has no valid size", entries, pos);
                }
                long data = pos + BLOCK;
                if (size > length - data) {
                    throw bad(
                            "it is truncated (member %d announces %d bytes, %d are left)",
                            entries, size, Math.max(0, length - data));
                }
                long next = data + TarHeader.padded(size);
                switch (type) {
                    case 'x' -> {
                        TarHeader.Pax pax = TarHeader.Pax.parse(readString(data, size));
                        longName = pax.path() != null ? pax.path() : longName;
                        paxSize = pax.size();
                    }
                    case 'g' -> {
                        /* global pax header: nothing vsm needs */
                    }
                    case 'L' -> longName = TarHeader.cString(readBytes(data, (int) Math.min(size, 4096)));
                    case '0', '\0', '7', '5' -> {
                        String name = longName != null ? longName : h.name();
                        longName = null;
                        if (type == '5' && (name.equals(".") || name.equals("./"))) {
                            pos = next; // the archive's own top directory
                            continue;
                        }
                        String checked = checkName(name);
                        if (file) {
                            found.add(new Member(checked, data, size));
                        }
                        paxSize = null;
                    }
                    case '1', '2' ->
                        throw bad(
                                "member '%s' is a %s link",
                                shown(longName != null ? longName : h.name()), type == '1' ? "hard" : "symbolic");
                    default ->
                        throw bad(
                                "member '%s' is not a regular file (tar type '%s')",
                                shown(longName != null ? longName : h.name()), type);
                }
                pos = next;
            }
        }

        private String checkName(String name) {
            String n = name;
            while (n.startsWith("./")) {
                n = n.substring(2);
            }
            if (n.endsWith("/")) {
                n = n.substring(0, n.length() - 1);
            }
            if (n.isEmpty() || n.startsWith("/") || n.indexOf('\0') >= 0 || n.indexOf('\\') >= 0) {
                throw bad("member name '%s' is empty, absolute or holds NUL or backslash", shown(name));
            }
            for (String part : n.split("/")) {
                if (part.equals("..") || part.isEmpty()) {
                    throw bad("member name '%s' leaves the archive's directory", shown(name));
                }
            }
            return n;
        }

        private byte[] readBlock(long pos) throws IOException {
            return readBytes(pos, BLOCK);
        }

        private String readString(long pos, long size) throws IOException {
            if (size > 1 << 20) {
                throw bad("a pax header of %d bytes is beyond reason", size);
            }
            return new String(readBytes(pos, (int) size), StandardCharsets.UTF_8);
        }

        private byte[] readBytes(long pos, int n) throws IOException {
            ByteBuffer b = ByteBuffer.allocate(n);
            while (b.hasRemaining()) {
                if (ch.read(b, pos + b.position()) < 0) {
                    throw bad("it is truncated at byte %d", pos + b.position());
                }
            }
            return b.array();
        }

        private StorageException bad(String format, Object... args) {
            return StorageException.badInput("refusing OVA '%s': %s", shown(ova), String.format(format, args));
        }
    }
}
