package dev.vsm.files;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Reading the file system (never changing it): stat, ctime and sorted directory entries. */
public final class FileStat {
    /** pve lists with Perl's glob, which sorts case-insensitively. */
    public static final Comparator<Path> GLOB_ORDER = Comparator.comparing(
                    (Path p) -> p.toString(), String.CASE_INSENSITIVE_ORDER)
            .thenComparing(Path::toString);

    private FileStat() {}

    /** stat (following symbolic links), or empty when it fails. */
    public static Optional<BasicFileAttributes> stat(Path path) {
        try {
            return Optional.of(Files.readAttributes(path, BasicFileAttributes.class));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** lstat (not following symbolic links), or empty when it fails. */
    public static Optional<BasicFileAttributes> lstat(Path path) {
        try {
            return Optional.of(Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The inode change time in seconds since the epoch, or null when it cannot be read. */
    public static Long ctime(Path path) {
        try {
            Object t = Files.getAttribute(path, "unix:ctime");
            return t instanceof FileTime ft ? ft.toMillis() / 1000 : null;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The entries of a directory that a shell glob {@code *} shows (no dot files), sorted as glob
     * sorts them; empty when unreadable. The names are sorted, not the paths (the same order: the
     * paths share their directory), each name's lower case computed once.
     */
    public static List<Path> entries(Path dir) {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                String name = p.getFileName().toString();
                if (!name.startsWith(".")) {
                    names.add(name);
                }
            }
        } catch (IOException | DirectoryIteratorException e) {
            return List.of();
        }
        return sortedGlob(names).stream().map(dir::resolve).toList();
    }

    /** Names in {@link #GLOB_ORDER}. */
    public static List<String> sortedGlob(List<String> names) {
        String[][] keyed = new String[names.size()][];
        for (int i = 0; i < keyed.length; i++) {
            String name = names.get(i);
            keyed[i] = new String[] {foldedOrNull(name), name};
        }
        Arrays.sort(keyed, (a, b) -> {
            int c = a[0] != null && b[0] != null
                    ? a[0].compareTo(b[0])
                    : String.CASE_INSENSITIVE_ORDER.compare(a[1], b[1]);
            return c != 0 ? c : a[1].compareTo(b[1]);
        });
        List<String> sorted = new ArrayList<>(keyed.length);
        for (String[] k : keyed) {
            sorted.add(k[1]);
        }
        return sorted;
    }

    /**
     * An ASCII name in lower case, which compares as {@link String#CASE_INSENSITIVE_ORDER} compares
     * the names; null for a name with other characters (compared by that order itself).
     */
    private static String foldedOrNull(String name) {
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) >= 0x80) {
                return null;
            }
        }
        return name.toLowerCase(Locale.ROOT);
    }

    public static boolean isFileOrLink(Path path) {
        return Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(path);
    }
}
