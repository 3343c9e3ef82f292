package dev.vsm.qemu;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.Command;
import dev.vsm.spi.CommandRunner;
import dev.vsm.spi.StorageException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What {@code qemu-img info} reports from a file's stat, for many files with one {@code stat}
 * process ({@code stat -L --printf '%b %B %Z %n\0' -- <files>}) instead of a call per file: the
 * bytes allocated on the host ({@code st_blocks * 512}), which java.nio cannot read, and the
 * inode change time, which it reads only through a map of named attributes (twice the cost of a
 * plain stat, per file). As many files per process as fit in {@link #ARGV_BYTES} (10,000 files of
 * 70-byte paths in one; each process started from Java costs some milliseconds).
 */
final class BatchStat {
    /** Bytes of file names (and their argv pointers) per stat process: half the kernel's usual 2 MiB limit, which the environment shares. */
    static final long ARGV_BYTES = 1L << 20;

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /**
     * One file's answer.
     *
     * @param allocated the bytes allocated on the host
     * @param ctime     the inode change time, in seconds since the epoch
     */
    record Entry(long allocated, long ctime) {}

    private final CommandRunner commands;

    BatchStat(CommandRunner commands) {
        this.commands = requireNonNull(commands, "commands");
    }

    /**
     * {@link #of} on a thread of its own, so that the stat processes run while the caller reads
     * the files' headers; for one file (a command's {@code info}) on the caller's thread when it
     * joins, since one header read is no work to overlap.
     */
    Pending start(List<Path> files) {
        List<Path> copy = List.copyOf(files);
        if (copy.size() <= 1) {
            return new Pending(null, copy);
        }
        return new Pending(
                CompletableFuture.supplyAsync(() -> of(copy), task -> {
                    Thread t = new Thread(task, "vsm-stat");
                    t.setDaemon(true);
                    t.start();
                }),
                copy);
    }

    /** The answer of {@link #start}, once its processes have ended. */
    final class Pending {
        /** null: stat on {@link #join}. */
        private final CompletableFuture<Map<Path, Entry>> future;

        private final List<Path> files;

        private Pending(CompletableFuture<Map<Path, Entry>> future, List<Path> files) {
            this.future = future;
            this.files = files;
        }

        Map<Path, Entry> join() {
            if (future == null) {
                return of(files);
            }
            try {
                return future.join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                throw e;
            }
        }
    }

    /** The answer for each file that could be stat'ed; a file that could not is absent. */
    Map<Path, Entry> of(List<Path> files) {
        Map<Path, Entry> found = new HashMap<>();
        int from = 0;
        while (from < files.size()) {
            int to = from;
            long bytes = 0;
            while (to < files.size() && (to == from || bytes + argvBytes(files.get(to)) <= ARGV_BYTES)) {
                bytes += argvBytes(files.get(to++));
            }
            statOrSplit(files.subList(from, to), found);
            from = to;
        }
        return found;
    }

    /** A file name's share of an argv: its bytes (at most 3 in UTF-8 for a non-ASCII char), the NUL and the pointer. */
    private static long argvBytes(Path file) {
        String name = file.toString();
        long bytes = name.length() + 1 + 8;
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) >= 0x80) {
                bytes += 2;
            }
        }
        return bytes;
    }

    /**
     * stat of the batch; when it fails (some file vanished or is unreadable), of each half, so
     * the others still get an answer with a few processes more, and the failing files are absent.
     */
    private void statOrSplit(List<Path> batch, Map<Path, Entry> found) {
        try {
            found.putAll(stat(batch));
        } catch (StorageException e) {
            if (batch.size() > 1) {
                statOrSplit(batch.subList(0, batch.size() / 2), found);
                statOrSplit(batch.subList(batch.size() / 2, batch.size()), found);
            }
            // a single file absent: the caller reports it for this file only
        }
    }

    private Map<Path, Entry> stat(List<Path> files) {
        List<String> argv = new ArrayList<>(List.of("stat", "-L", "--printf=%b %B %Z %n\\0", "--"));
        files.forEach(f -> argv.add(f.toString()));
        String out = commands.query(Command.of(argv).withTimeout(TIMEOUT)).stdout();
        Map<String, Path> byName = new HashMap<>();
        files.forEach(f -> byName.put(f.toString(), f));
        Map<Path, Entry> entries = new HashMap<>();
        // records "<blocks> <block size> <ctime> <name>\0", read in place (the output of 10,000 files is 700 KB)
        int at = 0;
        while (at < out.length()) {
            int end = out.indexOf('\0', at);
            if (end < 0) {
                end = out.length();
            }
            int space1 = out.indexOf(' ', at);
            int space2 = space1 < 0 ? -1 : out.indexOf(' ', space1 + 1);
            int space3 = space2 < 0 ? -1 : out.indexOf(' ', space2 + 1);
            if (space3 >= 0 && space3 < end) {
                Path file = byName.get(out.substring(space3 + 1, end));
                if (file != null) {
                    long allocated = Long.parseLong(out, at, space1, 10) * Long.parseLong(out, space1 + 1, space2, 10);
                    entries.put(file, new Entry(allocated, Long.parseLong(out, space2 + 1, space3, 10)));
                }
            }
            at = end + 1;
        }
        return entries;
    }
}
