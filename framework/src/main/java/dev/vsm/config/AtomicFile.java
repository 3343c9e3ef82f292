package dev.vsm.config;

import dev.vsm.files.ProcessStamp;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;

/**
 * Replaces a file so that a crash at any moment leaves either the old or the new content, never
 * a mix: the bytes go to a temporary file in the same directory
 * ({@code .<name>.tmp-<pid>.<start>-<random>}, the writer named by its {@link ProcessStamp}),
 * which is synced, renamed over the target, and the directory synced. The new file keeps the old
 * one's permissions and group, less any write permission of group or others (0644 stays 0644,
 * pve's 0640 with group {@code www-data} stays so, 0666 becomes 0644); a new file gets 0600: the
 * configuration decides where root writes and which code it runs, so no one else may change it. A symlink is followed: its target is
 * replaced, the link stays. On failure the temporary file is removed; ones left by a process that
 * died meanwhile are removed by {@link #removeStaleTemporaries}.
 */
final class AtomicFile {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Set<PosixFilePermission> NEW_FILE_MODE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private AtomicFile() {}

    /** Writes {@code bytes} to {@code target}, creating its parent directories. */
    static void write(Path target, byte[] bytes) {
        Path file = resolveLinks(target);
        Path dir = file.toAbsolutePath().getParent();
        Path temp = dir.resolve(temporaryPrefix(file) + ProcessStamp.current() + "-"
                + HexFormat.of().toHexDigits(RANDOM.nextInt()));
        try {
            Files.createDirectories(dir);
            PosixFileAttributes old = Files.exists(file) ? Files.readAttributes(file, PosixFileAttributes.class) : null;
            try (FileChannel out = FileChannel.open(
                    temp,
                    Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                    PosixFilePermissions.asFileAttribute(OWNER_ONLY))) {
                // made private first, given the final mode and group before any byte is written
                Files.setPosixFilePermissions(
                        temp, old != null ? withoutOthersWrite(old.permissions()) : NEW_FILE_MODE);
                if (old != null) {
                    keepGroup(temp, old.group());
                }
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
                out.force(true);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            syncDirectory(dir);
        } catch (IOException e) {
            deleteQuietly(temp);
            throw StorageException.failed(e, "can't write '%s': %s", target, describe(e));
        } catch (RuntimeException e) {
            deleteQuietly(temp);
            throw e;
        }
    }

    /** The start of the names of {@code file}'s temporary files. */
    static String temporaryPrefix(Path file) {
        return "." + file.getFileName() + ".tmp-";
    }

    /** Removes temporary files of {@code target} whose writing process no longer runs. Call with the file's lock held. */
    static void removeStaleTemporaries(Path target) {
        Path file = resolveLinks(target);
        Path dir = file.toAbsolutePath().getParent();
        String prefix = temporaryPrefix(file);
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> entries =
                Files.newDirectoryStream(dir, p -> p.getFileName().toString().startsWith(prefix))) {
            for (Path entry : entries) {
                String rest = entry.getFileName().toString().substring(prefix.length());
                int dash = rest.indexOf('-');
                if (dash > 0
                        && ProcessStamp.parse(rest.substring(0, dash))
                                .map(stamp -> !stamp.running())
                                .orElse(false)) {
                    deleteQuietly(entry);
                }
            }
        } catch (IOException e) {
            // an unreadable directory is reported by the write that follows
        }
    }

    private static Path resolveLinks(Path target) {
        try {
            return Files.exists(target) ? target.toRealPath() : target.toAbsolutePath();
        } catch (IOException e) {
            return target.toAbsolutePath();
        }
    }

    private static Set<PosixFilePermission> withoutOthersWrite(Set<PosixFilePermission> permissions) {
        Set<PosixFilePermission> kept = EnumSet.noneOf(PosixFilePermission.class);
        kept.addAll(permissions);
        kept.remove(PosixFilePermission.GROUP_WRITE);
        kept.remove(PosixFilePermission.OTHERS_WRITE);
        return kept;
    }

    private static void keepGroup(Path file, GroupPrincipal group) {
        try {
            Files.getFileAttributeView(file, PosixFileAttributeView.class).setGroup(group);
        } catch (IOException e) {
            // not allowed to give the file that group: it keeps ours, as any new file would
        }
    }

    private static void syncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // best effort: a leftover is removed by the next writer (removeStaleTemporaries)
        }
    }

    private static String describe(IOException e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException fse && fse.getReason() != null) {
            return fse.getReason();
        }
        return String.valueOf(e.getMessage());
    }
}
