package dev.vsm.t.support;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Whoever may write into a storage directory, racing vsm: a thread that keeps changing names in
 * it (each change one {@code rename(2)}, which replaces the name atomically, as a local user's
 * program would) until closed. {@link #swapping} flips a name between a file and a link to a
 * target; {@link #flipping} flips a directory's name between two links, {@link #replacingDirectory} between a directory and a link
 * (also {@link #replacingDirectoryWhileThere}); {@link #hijacking} replaces every new entry whose name matches with a link to a target.
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

    /**
     * Flips {@code name}, a symbolic link, between {@code inside} (a directory of the storage) and
     * {@code outside}: a directory above a volume's name swapped for a link out of the storage,
     * back and forth; the name always exists (each change one {@code rename(2)} of a new link over it).
     */
    public static NameRace flipping(Path name, Path inside, Path outside) {
        return flipping(name, inside, outside, Duration.ZERO);
    }

    /**
     * As {@link #flipping(Path, Path, Path)}, each link standing at least {@code dwell}: a command of
     * several steps then mostly sees one state throughout, and a flip lands between two of its steps
     * now and then (a race that flips at full speed lets such a command through only rarely).
     */
    public static NameRace flipping(Path name, Path inside, Path outside, Duration dwell) {
        Path link = name.resolveSibling(".race-flip-" + name.getFileName());
        return new NameRace("flipping " + name, () -> {
            for (Path target : new Path[] {outside, inside}) {
                if (Files.isDirectory(name, LinkOption.NOFOLLOW_LINKS)) {
                    // vsm made the directory while the name was missing (an old build removed the link): set it aside
                    Files.move(
                            name,
                            name.resolveSibling(".race-made-" + System.nanoTime()),
                            StandardCopyOption.ATOMIC_MOVE);
                }
                Files.deleteIfExists(link);
                Files.createSymbolicLink(link, target);
                Files.move(link, name, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                Thread.yield();
                if (!dwell.isZero()) {
                    LockSupport.parkNanos(dwell.toNanos());
                }
            }
            return true;
        });
    }

    /**
     * Swaps the directory {@code name} for a symbolic link to {@code outside} and back: the
     * directory is renamed aside and the link renamed in, then the link aside and the directory
     * back (Linux exchanges a directory and a link in one step only with {@code renameat2}, which
     * Java lacks; the name is missing for a moment in between). While aside, {@code refill} may
     * put back in the directory what vsm removed.
     */
    public static NameRace replacingDirectory(Path name, Path outside, Consumer<Path> refill) {
        Path aside = name.resolveSibling(".race-aside-" + name.getFileName());
        Path link = name.resolveSibling(".race-dirlink-" + name.getFileName());
        return new NameRace("replacing " + name, () -> {
            Files.move(name, aside, StandardCopyOption.ATOMIC_MOVE);
            Files.deleteIfExists(link);
            Files.createSymbolicLink(link, outside);
            Files.move(link, name, StandardCopyOption.ATOMIC_MOVE);
            Thread.yield();
            Files.move(name, link, StandardCopyOption.ATOMIC_MOVE);
            refill.accept(aside);
            Files.move(aside, name, StandardCopyOption.ATOMIC_MOVE);
            Thread.yield();
            return true;
        });
    }

    /**
     * As {@link #replacingDirectory} (without a refill), for a directory that vsm may remove
     * meanwhile, or rename with what holds it: {@code name} is best given through a directory
     * descriptor the test holds ({@code /proc/<pid>/fd/<n>/<name>}), which follows the directory
     * wherever it is renamed; once the name is gone the race idles.
     */
    public static NameRace replacingDirectoryWhileThere(Path name, Path outside) {
        Path aside = name.resolveSibling(".race-aside-" + name.getFileName());
        Path link = name.resolveSibling(".race-dirlink-" + name.getFileName());
        return new NameRace("replacing " + name + " while there", () -> {
            try {
                Files.move(name, aside, StandardCopyOption.ATOMIC_MOVE);
                Files.deleteIfExists(link);
                Files.createSymbolicLink(link, outside);
                Files.move(link, name, StandardCopyOption.ATOMIC_MOVE);
                Thread.yield();
                Files.move(name, link, StandardCopyOption.ATOMIC_MOVE);
                Files.move(aside, name, StandardCopyOption.ATOMIC_MOVE);
                Thread.yield();
                return true;
            } catch (java.nio.file.NoSuchFileException e) {
                return false; // vsm removed the name, the link, the directory aside or all of it: nothing left to swap
            }
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
