package dev.vsm.spi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * File-system changes made for a plugin. Under {@code --dry-run} each is printed as a
 * {@code + ...} line and not made. Reading (exists, list, stat) a plugin does itself with
 * {@code java.nio.file}.
 */
public interface HostFiles {
    /**
     * {@code mkdir -p}, with mode 0750 for new directories (less the umask): other local users
     * do not see into a storage's directories. Existing directories keep their mode.
     */
    void createDirectories(Path dir);

    /**
     * Creates an empty file of mode 0640 (less the umask) for a volume to be written into:
     * exclusively ({@code O_CREAT|O_EXCL}, an existing file or link there is an error). qemu-img
     * keeps the mode of a file that exists, and a process's umask cannot be set from Java, so a
     * volume file made this way before qemu-img writes it is never readable by other local users,
     * not even for a moment. A step of making a volume: under dry-run nothing happens and nothing
     * is printed (the command that writes the volume is).
     */
    void createFile(Path file);

    /** Removes a file; fails when it cannot. */
    void delete(Path file);

    /** Removes a directory if it is empty; returns whether it was removed. Never fails. */
    boolean deleteIfEmpty(Path dir);

    /**
     * Writes a small file whole (pve's {@code file_set_contents}): the bytes go to a temporary file
     * beside it, mode 0644, which is synced and renamed over {@code file}; a symbolic link at
     * {@code file} is replaced, never followed. Under dry-run: {@code + write <file>}.
     */
    void replaceFile(Path file, byte[] contents);

    /**
     * Renames, refusing to replace an existing target: atomically, so that a target made
     * meanwhile by another node or process is never replaced (a regular file is linked to its new
     * name with {@code link(2)}, which fails when the name exists, then its old name goes; a
     * directory replaces only an empty directory made for it a moment before).
     */
    void move(Path from, Path to);

    /**
     * Gives {@code file}, a regular file this process made and holds open, the name {@code name}
     * in {@code dir}, a directory it holds open: a hard link made from the two descriptors
     * ({@code linkat} with {@code AT_SYMLINK_FOLLOW} of {@link HeldFile#path()}), so the name gets
     * exactly the open file, whatever a writer of the directory did to the file's temporary name
     * meanwhile, and never replaces: it fails when the name exists. {@code shown} is the path the
     * name has, for messages. A step that publishes a volume: {@code beforeChange} and the test
     * pause point {@code move} come first, as for {@link #move}. Under dry-run:
     * {@code + ln -T <file> <shown>}.
     *
     * @throws UnsupportedOperationException when the implementation cannot (this default)
     */
    default void link(HeldFile file, HeldFile dir, String name, Path shown) {
        throw new UnsupportedOperationException(
                "linking a held file is not supported by " + getClass().getName());
    }

    /**
     * Removes {@code file} (a directory with everything in it) only if it is still the file the
     * operation found, whose attributes, read without following links, were {@code seen}: the
     * same {@link BasicFileAttributes#fileKey()} (device and inode) and
     * {@link BasicFileAttributes#creationTime()} (which tells apart a file made later on a reused
     * inode). When the name holds another file now (one made after this process's cluster lock
     * expired, say) or nothing, it fails and leaves what is there. Under dry-run:
     * {@code + rm -f <file>}.
     *
     * @throws UnsupportedOperationException when the implementation cannot tell (this default)
     */
    default void deleteIdentified(Path file, BasicFileAttributes seen) {
        throw new UnsupportedOperationException(
                "removal by identity is not supported by " + getClass().getName());
    }

    /**
     * The same changes, for the files of the storage whose directory is {@code base}: each path
     * strictly below {@code base} is reached from {@code base}'s descriptor one component at a
     * time without following links ({@code openat} with {@code O_NOFOLLOW}), and its last name is
     * created, linked, renamed, chmodded or removed relative to the directory so held. A link on
     * the way that stays inside the storage is walked again from {@code base}; one that leads out
     * is refused (bad input, naming it), never followed, whenever a writer of the storage swaps it
     * in. {@code base} itself (and a path outside it) is the configuration's and is used by path.
     * The default returns this, unchanged: for an implementation that cannot hold directories.
     */
    default HostFiles within(Path base) {
        return this;
    }

    /**
     * {@code fsync}: flushes a file's data or a directory's entries to the disk, so that they
     * survive a power cut. Not a change: under dry-run nothing happens and nothing is printed.
     */
    void sync(Path path);

    /** chmod 0440: read-only, and still not readable by other local users. */
    void makeReadOnly(Path file);

    /**
     * {@code rm -rf}: removes a directory and everything in it (symbolic links are removed, not
     * followed); nothing happens when it does not exist. The default walks the tree and removes
     * each entry with {@link #delete} and {@link #deleteIfEmpty}; an implementation may do it in
     * one step (and print one line under dry-run).
     */
    default void deleteTree(Path dir) {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            delete(dir);
            return;
        }
        List<Path> entries;
        try (Stream<Path> walk = Files.walk(dir)) {
            entries = walk.sorted(Comparator.reverseOrder()).toList();
        } catch (IOException | UncheckedIOException e) {
            throw StorageException.failed(e, "unable to remove '%s' - %s", dir, e.getMessage());
        }
        for (Path entry : entries) {
            if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                deleteIfEmpty(entry);
            } else {
                delete(entry);
            }
        }
    }
}
