package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.security.SecureRandom;
import java.util.Set;

/**
 * A file vsm holds open: what it checks, changes and hands to a tool is this open file, never a
 * name that could meanwhile be another file. Its {@link #path()}, {@code /proc/<pid>/fd/<n>} of this
 * process, reaches the same open file for this process (a {@code stat}, {@code chmod} or
 * {@code open} of it follows the descriptor, not a name) and, since vsm runs as root, for a tool it
 * starts (qemu-img, tar): Java's processes inherit no descriptor, and {@code /proc/self} would be the
 * child's own, so the path names this process. It is valid until {@link #close}.
 *
 * <p>Java gives no descriptor number; it is found once, when the file is taken, by a mark only this
 * channel carries: its position is set to a random offset and the one entry of
 * {@code /proc/self/fdinfo} showing it is the descriptor. Linux only, as vsm is.
 */
public final class HeldFile implements AutoCloseable {
    private static final Path FD_INFO = Path.of("/proc/self/fdinfo");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final FileChannel channel;
    private final Path path;

    private HeldFile(FileChannel channel, Path path) {
        this.channel = channel;
        this.path = path;
    }

    /**
     * Holds {@code channel}, a file channel on a regular file or a directory (such as
     * {@link java.nio.file.SecureDirectoryStream#newByteChannel} opens), closed with this; fails
     * (and closes it) when its descriptor cannot be found.
     */
    public static HeldFile of(SeekableByteChannel channel) throws IOException {
        requireNonNull(channel, "channel");
        try {
            if (!(channel instanceof FileChannel file)) {
                throw new IOException(
                        "not a file channel: " + channel.getClass().getName());
            }
            long mark = (1L << 32) + (RANDOM.nextLong() & ((1L << 39) - 1)); // below 1 TiB: any file system allows it
            long before = file.position();
            file.position(mark);
            int fd = descriptorAt(mark);
            file.position(before);
            return new HeldFile(file, Path.of("/proc/" + ProcessHandle.current().pid() + "/fd/" + fd));
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private static int descriptorAt(long mark) throws IOException {
        String wanted = "pos:\t" + mark + "\n";
        int found = -1;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(FD_INFO)) {
            for (Path entry : entries) {
                String info;
                try {
                    info = new String(Files.readAllBytes(entry), StandardCharsets.US_ASCII);
                } catch (IOException e) {
                    continue; // closed meanwhile: not the held one
                }
                if (info.startsWith(wanted)) {
                    if (found >= 0) {
                        throw new IOException("two descriptors at one position");
                    }
                    found = Integer.parseInt(entry.getFileName().toString());
                }
            }
        }
        if (found < 0) {
            throw new IOException("its descriptor is not in " + FD_INFO);
        }
        return found;
    }

    /**
     * Whether {@code path} is a {@link #path()} of this process: following it reaches a file vsm
     * holds open, not a name someone else may change.
     */
    public static boolean isHeld(Path path) {
        Path p = path.normalize();
        return p.getNameCount() == 4
                && p.isAbsolute()
                && p.getName(0).toString().equals("proc")
                && p.getName(1)
                        .toString()
                        .equals(Long.toString(ProcessHandle.current().pid()))
                && p.getName(2).toString().equals("fd")
                && p.getName(3).toString().matches("[0-9]+");
    }

    /** The open file. */
    public FileChannel channel() {
        return channel;
    }

    /** {@code /proc/<pid>/fd/<n>}: this open file, for this process and the tools it starts as root. */
    public Path path() {
        return path;
    }

    /** {@code fstat}: the open file's type, owner, mode, device and inode. */
    public PosixFileAttributes attributes() throws IOException {
        return Files.readAttributes(path, PosixFileAttributes.class);
    }

    /** {@code fchmod}: exactly {@code mode}, whatever the umask. */
    public void setPermissions(Set<PosixFilePermission> mode) throws IOException {
        Files.setPosixFilePermissions(path, mode);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    @Override
    public String toString() {
        return path.toString();
    }
}
