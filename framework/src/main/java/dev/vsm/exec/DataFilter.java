package dev.vsm.exec;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.InterruptedCommandException;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Commands in a data path whose output vsm reads as it comes ({@code cstream -t <rate>}
 * throttling a stream; {@code tar -c | cstream -t <rate>}), or whose input vsm writes
 * ({@code tar -x}): a pipeline of one or more commands, its standard input a file, vsm's own
 * or {@link #input()}, its standard output {@link #output()} or discarded. Each command is
 * registered with {@link ChildProcesses}, so Ctrl-C stops it as any other child; {@link #close()}
 * waits for them and fails as the command runner would.
 */
public final class DataFilter implements AutoCloseable {
    private static final ChildProcesses CHILDREN = ChildProcesses.jvm();

    private final List<List<String>> argvs;
    private final List<Process> processes;
    private final List<Path> stderrs;
    private final boolean fed;
    private boolean closed;

    private DataFilter(List<List<String>> argvs, List<Process> processes, List<Path> stderrs, boolean fed) {
        this.argvs = argvs;
        this.processes = processes;
        this.stderrs = stderrs;
        this.fed = fed;
    }

    /**
     * Starts {@code argv} reading {@code input} (null: vsm's standard input).
     *
     * @throws StorageException when it cannot start
     */
    public static DataFilter start(List<String> argv, Path input) {
        return pipeline(List.of(argv), input);
    }

    /**
     * Starts {@code argvs} as a pipeline, the first reading {@code input} (null: vsm's standard
     * input), each the one before; {@link #output()} is what the last one writes.
     */
    public static DataFilter pipeline(List<List<String>> argvs, Path input) {
        return start(
                argvs,
                input == null ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.from(input.toFile()),
                ProcessBuilder.Redirect.PIPE);
    }

    /** Starts {@code argv} reading what vsm writes to {@link #input()}, its output discarded. */
    public static DataFilter fed(List<String> argv) {
        return start(List.of(argv), ProcessBuilder.Redirect.PIPE, ProcessBuilder.Redirect.DISCARD);
    }

    private static DataFilter start(List<List<String>> argvs, ProcessBuilder.Redirect in, ProcessBuilder.Redirect out) {
        requireNonNull(argvs, "argvs");
        if (CHILDREN.stopping()) {
            throw new InterruptedCommandException(
                    String.format("not starting '%s': vsm is being stopped", joined(argvs)));
        }
        List<Path> errs = new ArrayList<>();
        try {
            List<ProcessBuilder> builders = new ArrayList<>();
            for (List<String> argv : argvs) {
                Path err = Files.createTempFile("vsm-filter", ".err");
                errs.add(err);
                ProcessBuilder pb = new ProcessBuilder(argv).redirectError(err.toFile());
                pb.environment().put("LC_ALL", "C");
                builders.add(pb);
            }
            builders.get(0).redirectInput(in);
            builders.get(builders.size() - 1).redirectOutput(out);
            CHILDREN.beforeStart();
            List<Process> started =
                    builders.size() == 1 ? List.of(builders.get(0).start()) : ProcessBuilder.startPipeline(builders);
            started.forEach(CHILDREN::add);
            return new DataFilter(
                    argvs.stream().map(List::copyOf).toList(), started, errs, in == ProcessBuilder.Redirect.PIPE);
        } catch (IOException e) {
            errs.forEach(DataFilter::deleteQuietly);
            throw StorageException.failed(e, "command '%s' failed: %s", joined(argvs), e.getMessage());
        } finally {
            CHILDREN.afterStart();
        }
    }

    private static String joined(List<List<String>> argvs) {
        return String.join(" | ", argvs.stream().map(ShellQuote::join).toList());
    }

    /** What the last command writes. */
    public InputStream output() {
        return processes.get(processes.size() - 1).getInputStream();
    }

    /** What the first command reads, for one started with {@link #fed}. */
    public OutputStream input() {
        return processes.get(0).getOutputStream();
    }

    /**
     * Stops the commands and waits for them, reporting nothing: vsm gave up on them, and what
     * made it give up is the failure to report.
     */
    public void abandon() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            processes.forEach(Process::destroy);
            waitForAll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            processes.forEach(Process::destroyForcibly);
        } finally {
            processes.forEach(CHILDREN::remove);
            stderrs.forEach(DataFilter::deleteQuietly);
        }
    }

    private void waitForAll() throws InterruptedException {
        for (Process p : processes) {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Ends the input of one started with {@link #fed}, waits for the commands (stopping them first
     * when the output was not read to the end) and fails when one failed, the last first:
     * {@code command '<argv>' failed: exit code <n> - <last stderr line>}.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (fed) {
                try {
                    input().close();
                } catch (IOException e) {
                    // it is gone already: its exit status tells why
                }
            }
            boolean stoppedEarly;
            try {
                stoppedEarly = output().read() >= 0;
            } catch (IOException e) {
                stoppedEarly = true;
            }
            if (stoppedEarly) {
                processes.forEach(Process::destroy);
            }
            waitForAll();
            if (stoppedEarly) {
                return; // vsm stopped reading: whatever made it stop is the failure to report
            }
            for (int i = processes.size() - 1; i >= 0; i--) {
                int exit = processes.get(i).exitValue();
                String argv = ShellQuote.join(argvs.get(i));
                if (CHILDREN.stopping() || exit == 130 || exit == 143) {
                    throw new InterruptedCommandException(String.format("command '%s' was stopped", argv));
                }
                if (exit != 0) {
                    String last = cause(Files.readString(stderrs.get(i), StandardCharsets.UTF_8));
                    throw StorageException.failed(
                            "command '%s' failed: exit code %d%s", argv, exit, last.isEmpty() ? "" : " - " + last);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            processes.forEach(Process::destroyForcibly);
            throw new InterruptedCommandException(String.format("command '%s' was interrupted", joined(argvs)));
        } catch (IOException e) {
            throw StorageException.failed(e, "command '%s' failed: %s", joined(argvs), e.getMessage());
        } finally {
            processes.forEach(CHILDREN::remove);
            stderrs.forEach(DataFilter::deleteQuietly);
        }
    }

    /** The last line of stderr, but the one before tar's {@code Exiting with failure status due to previous errors}. */
    private static String cause(String stderr) {
        String withoutSummary =
                stderr.strip().replaceFirst("\\n?tar: Exiting with failure status due to previous errors$", "");
        return ProcessCommandRunner.lastLine(withoutSummary);
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
