package dev.vsm.plugin.dir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Reading the file system (never changing it): stat, ctime and sorted directory entries. */
final class FileStat {
    /** pve lists with Perl's glob, which sorts case-insensitively. */
    static final Comparator<Path> GLOB_ORDER = Comparator.comparing((Path p) -> p.toString(), String.CASE_INSENSITIVE_ORDER)
            .thenComparing(Path::toString);

    private FileStat() {}

    /** stat (following symbolic links), or empty when it fails. */
    static Optional<BasicFileAttributes> stat(Path path) {
        try {
            return Optional.of(Files.readAttributes(path, BasicFileAttributes.class));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The inode change time in seconds since the epoch, or null when it cannot be read. */
    static Long ctime(Path path) {
        try {
            Object t = Files.getAttribute(path, "unix:ctime");
            return t instanceof FileTime ft ? ft.toMillis() / 1000 : null;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return null;
        }
    }

    /** The entries of a directory that a shell glob {@code *} shows (no dot files), sorted as glob sorts them; empty when unreadable. */
    static List<Path> entries(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> found = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(p -> !p.getFileName().toString().startsWith(".")).forEach(found::add);
        } catch (IOException e) {
            return List.of();
        }
        found.sort(GLOB_ORDER);
        return found;
    }

    static boolean isFileOrLink(Path path) {
        return Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(path);
    }
}
