package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * An external command: an argv list (never a shell line), where to run it, how long it may
 * take and how its failure is worded.
 *
 * <p>Made with {@link #of} and the withers, so that it can gain fields without breaking plugins
 * built against an older SPI.
 */
public final class Command {
    private final List<String> argv;
    private final Path workDir;
    private final Duration timeout;
    private final String errorPrefix;

    private Command(List<String> argv, Path workDir, Duration timeout, String errorPrefix) {
        this.argv = List.copyOf(argv);
        if (this.argv.isEmpty()) {
            throw new IllegalArgumentException("empty argv");
        }
        this.workDir = workDir;
        this.timeout = timeout;
        this.errorPrefix = errorPrefix;
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

    /** The program and its arguments. */
    public List<String> argv() {
        return argv;
    }

    /** The working directory, or null for the current one. */
    public Path workDir() {
        return workDir;
    }

    /** How long it may run, or null for no limit. */
    public Duration timeout() {
        return timeout;
    }

    /**
     * The start of the error message if it fails ({@code <prefix>: <last stderr line>}), or null
     * for pve's {@code command '<argv>' failed: exit code <n>}.
     */
    public String errorPrefix() {
        return errorPrefix;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Command that
                && argv.equals(that.argv)
                && Objects.equals(workDir, that.workDir)
                && Objects.equals(timeout, that.timeout)
                && Objects.equals(errorPrefix, that.errorPrefix);
    }

    @Override
    public int hashCode() {
        return Objects.hash(argv, workDir, timeout, errorPrefix);
    }

    @Override
    public String toString() {
        return "Command[argv=" + argv + ", workDir=" + workDir + ", timeout=" + timeout + ", errorPrefix=" + errorPrefix
                + "]";
    }
}
