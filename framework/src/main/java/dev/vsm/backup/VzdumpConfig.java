package dev.vsm.backup;

import dev.vsm.exec.DataFilter;
import dev.vsm.files.TarHeader;
import dev.vsm.spi.HeldFile;
import dev.vsm.spi.InterruptedCommandException;
import dev.vsm.spi.StorageException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The guest configuration inside a vzdump archive (pve's {@code extract_vzdump_config}): for a
 * container ({@code lxc}, {@code openvz}) the tar member {@code ./etc/vzdump/pct.conf} (or
 * {@code vps.conf}), for a VM in a tar archive {@code ./qemu-server.conf}, for a VM in a VMA archive
 * the {@code qemu-server.conf} blob of its header ({@link VmaHeader}, read here instead of with the
 * {@code vma} tool). Both are read in Java ({@link TarHeader} for tar) from the archive or from
 * Debian's decompressor ({@code zcat}, {@code lzop -d -c}, {@code zstd -q -d -c}, {@code bzcat -q}),
 * which is given the archive on its standard input and stopped as soon as the configuration is read.
 * At most {@link #MAX_UNPACKED} bytes of the unpacked archive are read: a small archive may unpack
 * to terabytes (a 68 KB {@code .tar.zst} to 4 GiB), and {@code tar -t} read all of it.
 */
public final class VzdumpConfig {
    /** The most a configuration may hold (a VMA blob holds at most 64 KiB). */
    static final int MAX_CONFIG = 1 << 20;

    /**
     * The most of an unpacked archive read to find its configuration: 64 MiB. vzdump writes the
     * configuration as the first member of a tar archive (after the {@code ./etc/vzdump/} directory
     * of a container's), so it ends within a few KiB of the start, and at most {@link #MAX_CONFIG}
     * plus a few headers for the largest configuration taken; a VMA header holds at most 33.5 MiB
     * ({@link VmaHeader#MAX_SIZE}). An archive whose configuration does not end by then is refused
     * as bad input, whatever more it would unpack to.
     */
    static final long MAX_UNPACKED = 64L << 20;

    private static final Pattern CONTAINER_CONF = Pattern.compile("\\./etc/vzdump/(pct|vps)\\.conf");
    private static final Pattern VM_CONF = Pattern.compile("(\\./)?qemu-server\\.conf");
    private static final String VMA_CONF = "qemu-server.conf";

    private VzdumpConfig() {}

    /**
     * The configuration, its lines each ending in a line feed (as pve collects it).
     *
     * @param archive the archive file; not followed when it is a symbolic link
     * @throws StorageException bad input for a missing or bad archive, one without a configuration,
     *                          or one whose decompressor fails on it
     */
    public static String extract(Path archive, ArchiveInfo info) {
        if (!Files.isRegularFile(archive, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("ERROR: file '%s' does not exist", archive);
        }
        byte[] raw;
        try (HeldFile held = hold(archive)) {
            if (info.type().equals("qemu") && info.format().equals("vma")) {
                raw = vma(archive, held.path(), info);
            } else if (info.type().equals("qemu")) {
                raw = tar(archive, held.path(), info, VM_CONF);
            } else {
                raw = tar(archive, held.path(), info, CONTAINER_CONF);
            }
        } catch (IOException e) {
            throw StorageException.failed(e, "unable to read '%s' - %s", archive, e.getMessage());
        }
        String text = new String(raw, StandardCharsets.UTF_8);
        return text.isEmpty() || text.endsWith("\n") ? text : text + "\n";
    }

    /**
     * The archive, opened once without following a link and checked through its descriptor: what
     * the decompressor and tar read is this open file ({@link HeldFile#path()}), not a name that
     * whoever may write into the backup directory could meanwhile point elsewhere.
     */
    private static HeldFile hold(Path archive) throws IOException {
        HeldFile held;
        try {
            held = HeldFile.of(FileChannel.open(archive, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            throw StorageException.badInput("ERROR: file '%s' does not exist", archive);
        } catch (IOException e) {
            boolean link = String.valueOf(e.getMessage()).contains("symbolic links"); // ELOOP: a link swapped in
            if (link || !Files.isRegularFile(archive, LinkOption.NOFOLLOW_LINKS)) {
                throw StorageException.badInput("'%s' is not a regular file: not reading it", archive);
            }
            throw e;
        }
        if (!held.attributes().isRegularFile()) {
            held.close();
            throw StorageException.badInput("'%s' is not a regular file: not reading it", archive);
        }
        return held;
    }

    private static byte[] vma(Path archive, Path input, ArchiveInfo info) throws IOException {
        VmaHeader header;
        header = unpacked(archive, input, info, in -> readVma(archive, in));
        byte[] config = header.configs().get(VMA_CONF);
        if (config == null) {
            throw StorageException.badInput("unable to find configuration data '%s' in '%s'", VMA_CONF, archive);
        }
        return config;
    }

    private static VmaHeader readVma(Path archive, InputStream in) throws IOException {
        try {
            return VmaHeader.read(in);
        } catch (StorageException e) {
            throw StorageException.badInput("'%s': %s", archive, e.getMessage());
        }
    }

    private static byte[] tar(Path archive, Path input, ArchiveInfo info, Pattern member) throws IOException {
        byte[] found = unpacked(archive, input, info, in -> tarMember(archive, in, member));
        if (found == null) {
            throw StorageException.badInput("ERROR: archive contains no configuration file ('%s')", archive);
        }
        return found;
    }

    /**
     * What {@code reader} makes of the unpacked archive, of which it may read at most
     * {@link #MAX_UNPACKED} bytes.
     */
    private static <T> T unpacked(Path archive, Path input, ArchiveInfo info, OutputReader<T> reader)
            throws IOException {
        OutputReader<T> bounded = in -> reader.read(new LimitedInput(archive, in));
        if (info.compression() == null) {
            try (InputStream in = Files.newInputStream(input)) {
                return bounded.read(in);
            }
        }
        return filtered(archive, input, ArchiveInfo.streamDecompressor(info.compression()), bounded);
    }

    /**
     * The data of the first regular file in the tar stream whose name matches {@code member} (as
     * pve takes the first name {@code tar -t} lists that matches and extracts its first occurrence),
     * or null when the archive ends without one.
     */
    private static byte[] tarMember(Path archive, InputStream in, Pattern member) throws IOException {
        String longName = null;
        Long paxSize = null;
        while (true) {
            byte[] block = in.readNBytes(TarHeader.BLOCK);
            TarHeader h = block.length == TarHeader.BLOCK ? TarHeader.of(block) : null;
            if (block.length == 0 || (h == null && block.length == TarHeader.BLOCK)) {
                return null; // the end blocks, or none (tar tolerates that)
            }
            if (h == null) {
                throw unreadable(archive, "it ends inside a tar header");
            }
            if (!h.checksumMatches()) {
                throw unreadable(archive, "this does not look like a tar archive (header checksum mismatch)");
            }
            long size = h.isFile() && paxSize != null ? paxSize : h.size();
            if (size < 0) {
                throw unreadable(archive, "a tar header has no valid size");
            }
            switch (h.type()) {
                case 'x' -> {
                    TarHeader.Pax pax =
                            TarHeader.Pax.parse(new String(data(archive, in, size), StandardCharsets.UTF_8));
                    longName = pax.path() != null ? pax.path() : longName;
                    paxSize = pax.size();
                }
                case 'L' -> longName = TarHeader.cString(data(archive, in, size));
                default -> {
                    String name = longName != null ? longName : h.name();
                    longName = null;
                    paxSize = null;
                    if (h.isFile() && member.matcher(name).matches()) {
                        if (size > MAX_CONFIG) {
                            throw StorageException.badInput(
                                    "the configuration in '%s' is larger than %d bytes", archive, MAX_CONFIG);
                        }
                        return data(archive, in, size);
                    }
                    for (boolean extended = h.gnuSparseExtended(); extended; ) {
                        byte[] extension = in.readNBytes(TarHeader.BLOCK);
                        if (extension.length < TarHeader.BLOCK) {
                            throw unreadable(archive, "it ends inside a tar header");
                        }
                        extended = extension[504] != 0;
                    }
                    skip(archive, in, TarHeader.padded(size));
                }
            }
        }
    }

    /** A member's data of {@code size} bytes (at most {@link #MAX_CONFIG}), the stream then at the next header. */
    private static byte[] data(Path archive, InputStream in, long size) throws IOException {
        if (size > MAX_CONFIG) {
            throw unreadable(archive, "a tar extended header has " + size + " bytes");
        }
        byte[] data = in.readNBytes((int) size);
        if (data.length < size) {
            throw unreadable(archive, "it ends inside a member");
        }
        skip(archive, in, TarHeader.padded(size) - size);
        return data;
    }

    private static void skip(Path archive, InputStream in, long n) throws IOException {
        try {
            in.skipNBytes(n);
        } catch (EOFException e) {
            throw unreadable(archive, "it ends inside a member");
        }
    }

    private static StorageException unreadable(Path archive, String why) {
        return StorageException.badInput("unable to read archive '%s' - %s", archive, why);
    }

    /** The unpacked archive, refused as bad input once more than {@link #MAX_UNPACKED} bytes of it are read. */
    private static final class LimitedInput extends InputStream {
        private final Path archive;
        private final InputStream in;
        private long read;

        LimitedInput(Path archive, InputStream in) {
            this.archive = archive;
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (read >= MAX_UNPACKED && len > 0) {
                throw unreadable(
                        archive,
                        String.format(
                                "no configuration within its first %d MiB unpacked (vzdump writes it first): not reading on",
                                MAX_UNPACKED >> 20));
            }
            int n = in.read(b, off, (int) Math.min(len, MAX_UNPACKED - read));
            if (n > 0) {
                read += n;
            }
            return n;
        }
    }

    /** What {@code reader} makes of the output of {@code argv} reading the archive; the command's failure is bad input. */
    private static <T> T filtered(Path archive, Path input, List<String> argv, OutputReader<T> reader)
            throws IOException {
        DataFilter filter = DataFilter.start(argv, input);
        T result;
        try {
            result = reader.read(filter.output());
        } catch (StorageException | IOException e) {
            closeFailed(archive, filter);
            throw e;
        }
        closeFailed(archive, filter);
        return result;
    }

    private static void closeFailed(Path archive, DataFilter filter) {
        try {
            filter.close();
        } catch (StorageException e) {
            if (e.kind() == StorageException.Kind.FAILED && !(e instanceof InterruptedCommandException)) {
                throw StorageException.badInput("unable to read archive '%s' - %s", archive, e.getMessage());
            }
            throw e;
        }
    }

    @FunctionalInterface
    private interface OutputReader<T> {
        T read(InputStream out) throws IOException;
    }
}
