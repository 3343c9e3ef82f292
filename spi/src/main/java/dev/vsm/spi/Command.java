package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * An external command: an argv list (never a shell line), where to run it, how long it may
 * take and how its failure is worded.
 *
 * @param argv        the program and its arguments
 * @param workDir     the working directory, or null for the current one
 * @param timeout     how long it may run, or null for no limit
 * @param errorPrefix the start of the error message if it fails ({@code <prefix>: <last stderr line>}),
 *                    or null for pve's {@code command '<argv>' failed: exit code <n>}
 */
public record Command(List<String> argv, Path workDir, Duration timeout, String errorPrefix) {
    public Command {
        argv = List.copyOf(argv);
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("empty argv");
        }
    }

    public static Command of(String... argv) {
        return new Command(List.of(argv), null, null, null);
    }

    public static Command of(List<String> argv) {
        return new Command(argv, null, null, null);
    }

    public Command inDirectory(Path dir) {
        return new Command(argv, requireNonNull(dir), timeout, errorPrefix);
    }

    public Command withTimeout(Duration limit) {
        return new Command(argv, workDir, requireNonNull(limit), errorPrefix);
    }

    public Command withErrorPrefix(String prefix) {
        return new Command(argv, workDir, timeout, requireNonNull(prefix));
    }
}
