package dev.vsm.t.support;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Whoever may write into a storage directory, racing vsm: a thread that keeps changing names in
 * it (each change one {@code rename(2)}, which replaces the name atomically, as a local user's
 * program would) until closed. {@link #swapping} flips a name between a file and a link to a
 * target; {@link #hijacking} replaces every new entry whose name matches with a link to a target.
 */
public final class NameRace implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong changes = new AtomicLong();
    private final Thread thread;
    private volatile Throwable failure;

    private NameRace(String name, Step step) {
        thread = new Thread(
                () -> {
                    try {
                        while (!stop.get()) {
                            if (step.run()) {
                                changes.incrementAndGet();
                            }
                            Thread.yield();
                        }
                    } catch (IOException | RuntimeException e) {
                        failure = e;
                    }
                },
                name);
        thread.setDaemon(true);
        thread.start();
    }

    @FunctionalInterface
    private interface Step {
        boolean run() throws IOException;
    }

    /**
     * Flips {@code name}, a regular file, between itself (kept as a hard link beside it) and a
     * symbolic link to {@code target}; the name always exists.
     */
    public static NameRace swapping(Path name, Path target) throws IOException {
        Path keep = Files.createLink(name.resolveSibling(".race-keep-" + name.getFileName()), name);
        Path link = name.resolveSibling(".race-link-" + name.getFileName());
        Path hard = name.resolveSibling(".race-hard-" + name.getFileName());
        return new NameRace("swapping " + name, () -> {
            Files.deleteIfExists(link);
            Files.createSymbolicLink(link, target);
            Files.move(link, name, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            Thread.yield();
            Files.deleteIfExists(hard);
            Files.createLink(hard, keep);
            Files.move(hard, name, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return true;
        });
    }

    /** Replaces each entry of {@code dir} whose name matches, and is no link yet, with a symbolic link to {@code target}. */
    public static NameRace hijacking(Path dir, Predicate<String> names, Path target) {
        Path link = dir.resolve(".race-link");
        return new NameRace("hijacking in " + dir, () -> {
            boolean changed = false;
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(
                    dir, p -> names.test(p.getFileName().toString()))) {
                for (Path entry : entries) {
                    if (!Files.isSymbolicLink(entry)) {
                        Files.deleteIfExists(link);
                        Files.createSymbolicLink(link, target);
                        Files.move(link, entry, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                        changed = true;
                    }
                }
            } catch (IOException e) {
                return changed; // a name gone meanwhile, or the directory: the race goes on
            }
            return changed;
        });
    }

    /** How many changes were made: a race that changed nothing tested nothing. */
    public long changes() {
        return changes.get();
    }

    /** Stops the thread; rethrows what stopped it early. */
    @Override
    public void close() {
        stop.set(true);
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failure != null) {
            throw new IllegalStateException("the racing thread failed", failure);
        }
    }
}
