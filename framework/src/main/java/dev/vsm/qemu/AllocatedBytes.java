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

/**
 * The bytes allocated on the host for files, as qemu-img reports them ({@code st_blocks * 512}).
 * java.nio cannot read a file's block count, so this runs one {@code stat} for many files at
 * once ({@code stat -L --printf '%b %B %n\0' -- <files>}), instead of a process per file.
 */
final class AllocatedBytes {
    /** Files per stat process: keeps each argv far below the kernel's limit. */
    static final int BATCH = 1000;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final CommandRunner commands;

    AllocatedBytes(CommandRunner commands) {
        this.commands = requireNonNull(commands, "commands");
    }

    /** The allocated bytes of each file that could be stat'ed; a file that could not is absent. */
    Map<Path, Long> of(List<Path> files) {
        Map<Path, Long> found = new HashMap<>();
        for (int from = 0; from < files.size(); from += BATCH) {
            List<Path> batch = files.subList(from, Math.min(files.size(), from + BATCH));
            try {
                found.putAll(stat(batch));
            } catch (StorageException e) {
                // some file vanished or is unreadable: ask one by one, so the others still get an answer
                for (Path file : batch) {
                    try {
                        found.putAll(stat(List.of(file)));
                    } catch (StorageException alone) {
                        // absent: the caller reports it for this file only
                    }
                }
            }
        }
        return found;
    }

    private Map<Path, Long> stat(List<Path> files) {
        List<String> argv = new ArrayList<>(List.of("stat", "-L", "--printf=%b %B %n\\0", "--"));
        files.forEach(f -> argv.add(f.toString()));
        String out = commands.query(Command.of(argv).withTimeout(TIMEOUT)).stdout();
        Map<String, Path> byName = new HashMap<>();
        files.forEach(f -> byName.put(f.toString(), f));
        Map<Path, Long> sizes = new HashMap<>();
        for (String record : out.split("\0")) {
            String[] parts = record.split(" ", 3);
            if (parts.length == 3 && byName.containsKey(parts[2])) {
                sizes.put(byName.get(parts[2]), Long.parseLong(parts[0]) * Long.parseLong(parts[1]));
            }
        }
        return sizes;
    }
}
