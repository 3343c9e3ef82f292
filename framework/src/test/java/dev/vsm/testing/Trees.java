package dev.vsm.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Removing what a test made on disk. */
public final class Trees {
    private Trees() {}

    /**
     * Deletes {@code path} and, when it is a directory, everything under it; symbolic links are
     * removed, never followed. A path that does not exist is left as it is.
     */
    public static void delete(Path path) throws IOException {
        if (Files.notExists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        List<Path> deepestFirst;
        try (Stream<Path> walk = Files.walk(path)) {
            deepestFirst = walk.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path p : deepestFirst) {
            Files.delete(p);
        }
    }
}
