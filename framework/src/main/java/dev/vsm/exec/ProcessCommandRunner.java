package dev.vsm.exec;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.Command;
import dev.vsm.spi.CommandRunner;
import dev.vsm.spi.Console;
import dev.vsm.spi.StorageException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.exec.CommandLine;
import org.apache.commons.exec.DefaultExecutor;
import org.apache.commons.exec.ExecuteException;
import org.apache.commons.exec.ExecuteWatchdog;
import org.apache.commons.exec.PumpStreamHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs commands with commons-exec: argv lists (never a shell), a watchdog for timeouts, stderr
 * kept for the error message. Under dry-run, changing commands are printed as {@code + argv}
 * instead of run.
 *
 * <p>Failures are worded as pve's {@code run_command}: {@code <prefix>: <last stderr line>} (or
 * {@code <prefix>: exit code <n>}), without a prefix {@code command '<argv>' failed: exit code <n>},
 * and {@code command '<argv>' failed: got timeout}.
 */
public final class ProcessCommandRunner implements CommandRunner {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessCommandRunner.class);
    /** pve runs its tools with this PATH; sbin holds lvm2 and blkdiscard. */
    private static final String SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private final boolean dryRun;
    private final Console console;

    public ProcessCommandRunner(boolean dryRun, Console console) {
        this.dryRun = dryRun;
        this.console = requireNonNull(console, "console");
    }

    @Override
    public Result query(Command command) {
        return execute(command);
    }

    @Override
    public Result run(Command command) {
        if (dryRun) {
            console.info("+ " + render(command));
            return new Result(0, "", "");
        }
        return execute(command);
    }

    /** The shell line a command stands for, with its working directory when it has one. */
    public static String render(Command command) {
        String line = ShellQuote.join(command.argv());
        return command.workDir() == null ? line : "cd " + ShellQuote.quote(command.workDir().toString()) + " && " + line;
    }

    private Result execute(Command command) {
        List<String> argv = command.argv();
        CommandLine line = new CommandLine(argv.get(0));
        for (String arg : argv.subList(1, argv.size())) {
            line.addArgument(arg, false);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        DefaultExecutor.Builder<?> builder = DefaultExecutor.builder().setExecuteStreamHandler(new PumpStreamHandler(out, err));
        if (command.workDir() != null) {
            builder.setWorkingDirectory(command.workDir().toFile());
        }
        DefaultExecutor executor = builder.get();
        executor.setExitValues(null);
        ExecuteWatchdog watchdog = null;
        if (command.timeout() != null) {
            watchdog = ExecuteWatchdog.builder().setTimeout(command.timeout()).get();
            executor.setWatchdog(watchdog);
        }
        LOG.debug("run: {}", render(command));
        int exit;
        try {
            exit = executor.execute(line, environment());
        } catch (ExecuteException e) {
            exit = e.getExitValue();
        } catch (IOException e) {
            throw StorageException.failed(e, "command '%s' failed: %s", ShellQuote.join(argv), firstLine(e.getMessage()));
        }
        String stdout = out.toString(StandardCharsets.UTF_8);
        String stderr = err.toString(StandardCharsets.UTF_8);
        if (watchdog != null && watchdog.killedProcess()) {
            throw StorageException.failed("command '%s' failed: got timeout", ShellQuote.join(argv));
        }
        if (exit != 0) {
            String last = lastLine(stderr);
            String prefix = command.errorPrefix();
            if (prefix != null) {
                throw StorageException.failed("%s: %s", prefix, last.isEmpty() ? "exit code " + exit : last);
            }
            throw StorageException.failed("command '%s' failed: %s", ShellQuote.join(argv),
                    last.isEmpty() ? "exit code " + exit : "exit code " + exit + " - " + last);
        }
        return new Result(exit, stdout, stderr);
    }

    private static Map<String, String> environment() {
        Map<String, String> env = new HashMap<>(System.getenv());
        String path = env.getOrDefault("PATH", "");
        env.put("PATH", path.isEmpty() ? SYSTEM_PATH : path + ":" + SYSTEM_PATH);
        env.put("LC_ALL", "C");
        return env;
    }

    static String lastLine(String text) {
        String[] lines = text.strip().split("\n");
        return lines.length == 0 ? "" : lines[lines.length - 1].strip();
    }

    private static String firstLine(String text) {
        return text == null ? "unknown error" : text.strip().split("\n", 2)[0];
    }
}
