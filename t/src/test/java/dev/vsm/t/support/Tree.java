package dev.vsm.t.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A snapshot of a directory tree to prove a command changed nothing: every entry's path, and
 * for files their size, modification time and permissions. Directories are compared by their
 * entries and permissions only (their mtime moves when a file is made and removed again).
 */
public final class Tree {
    private Tree() {}

    public static Map<String, String> snapshot(Path root) {
        Map<String, String> map = new TreeMap<>();
        if (!Files.exists(root)) {
            return map;
        }
        try (Stream<Path> s = Files.walk(root)) {
            s.filter(p -> !p.equals(root)
                            && !p.getFileName().toString().startsWith(".vsm-")
                            && !isLock(root.relativize(p)))
                    .forEach(p -> {
                        try {
                            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                            String perms = Files.isSymbolicLink(p)
                                    ? "link"
                                    : java.nio.file.attribute.PosixFilePermissions.toString(
                                            Files.getPosixFilePermissions(p));
                            map.put(
                                    root.relativize(p).toString(),
                                    (a.isDirectory() ? "dir " : a.size() + " " + a.lastModifiedTime() + " ") + perms);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return map;
    }

    /** Lock files are not state: taking a lock to find that an edit is wrong leaves one behind, by design. */
    private static boolean isLock(Path relative) {
        return relative.startsWith("locks");
    }
}
