package dev.vsm.exec;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.InterruptedCommandException;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A command in a data path whose output vsm reads as it comes ({@code cstream -t <rate>}
 * throttling a stream): its standard input is a file or vsm's own, its standard output is
 * {@link #output()}. It is registered with {@link ChildProcesses}, so Ctrl-C stops it as any
 * other child; {@link #close()} waits for it and fails as the command runner would.
 */
public final class DataFilter implements AutoCloseable {
    private static final ChildProcesses CHILDREN = ChildProcesses.jvm();

    private final List<String> argv;
    private final Process process;
    private final Path stderr;
    private boolean closed;

    private DataFilter(List<String> argv, Process process, Path stderr) {
        this.argv = argv;
        this.process = process;
        this.stderr = stderr;
    }

    /**
     * Starts {@code argv} reading {@code input} (null: vsm's standard input).
     *
     * @throws StorageException when it cannot start
     */
    public static DataFilter start(List<String> argv, Path input) {
        requireNonNull(argv, "argv");
        if (CHILDREN.stopping()) {
            throw new InterruptedCommandException(
                    String.format("not starting '%s': vsm is being stopped", ShellQuote.join(argv)));
        }
        Path err = null;
        try {
            err = Files.createTempFile("vsm-filter", ".err");
            ProcessBuilder pb = new ProcessBuilder(argv)
                    .redirectInput(
                            input == null
                                    ? ProcessBuilder.Redirect.INHERIT
                                    : ProcessBuilder.Redirect.from(input.toFile()))
                    .redirectError(err.toFile());
            pb.environment().put("LC_ALL", "C");
            CHILDREN.beforeStart();
            Process p = pb.start();
            CHILDREN.add(p);
            return new DataFilter(List.copyOf(argv), p, err);
        } catch (IOException e) {
            deleteQuietly(err);
            throw StorageException.failed(e, "command '%s' failed: %s", ShellQuote.join(argv), e.getMessage());
        } finally {
            CHILDREN.afterStart();
        }
    }

    /** What the command writes. */
    public InputStream output() {
        return process.getInputStream();
    }

    /**
     * Waits for the command (stopping it first when its output was not read to the end) and fails
     * when it failed: {@code command '<argv>' failed: exit code <n> - <last stderr line>}.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            boolean stoppedEarly;
            try {
                stoppedEarly = process.getInputStream().read() >= 0;
            } catch (IOException e) {
                stoppedEarly = true;
            }
            if (stoppedEarly) {
                process.destroy();
            }
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
            if (stoppedEarly) {
                return; // vsm stopped reading: whatever made it stop is the failure to report
            }
            int exit = process.exitValue();
            if (CHILDREN.stopping() || exit == 130 || exit == 143) {
                throw new InterruptedCommandException(String.format("command '%s' was stopped", ShellQuote.join(argv)));
            }
            if (exit != 0) {
                String last = ProcessCommandRunner.lastLine(Files.readString(stderr, StandardCharsets.UTF_8));
                throw StorageException.failed(
                        "command '%s' failed: exit code %d%s",
                        ShellQuote.join(argv), exit, last.isEmpty() ? "" : " - " + last);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new InterruptedCommandException(String.format("command '%s' was interrupted", ShellQuote.join(argv)));
        } catch (IOException e) {
            throw StorageException.failed(e, "command '%s' failed: %s", ShellQuote.join(argv), e.getMessage());
        } finally {
            CHILDREN.remove(process);
            deleteQuietly(stderr);
        }
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a temp file left behind is harmless
            }
        }
    }
}
