package dev.vsm.exec;

import static java.util.Objects.requireNonNull;

import dev.vsm.env.Environment;
import dev.vsm.env.TestPause;
import dev.vsm.spi.Command;
import dev.vsm.spi.CommandRunner;
import dev.vsm.spi.Console;
import dev.vsm.spi.InterruptedCommandException;
import dev.vsm.spi.StorageException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 *
 * <p>Every child is registered with {@link ChildProcesses}: when vsm is stopped (Ctrl-C,
 * SIGTERM) the running command is stopped too, and a command that ended on SIGINT or SIGTERM
 * raises {@link InterruptedCommandException} rather than an ordinary failure.
 *
 * <p>A changing qemu-img dies with vsm, also when vsm is killed with SIGKILL: it runs under
 * {@code setpriv --pdeathsig KILL} (util-linux), which sets the parent-death signal before it
 * execs qemu-img. An orphaned qemu-img would go on writing (a commit into a snapshot, a rebase that
 * switches a backing name at its end) while the next operation or {@code vsm cleanup} recovers
 * what the killed run left, and undo what the recovery decided (docs/volume-chains.md, "Crash
 * safety"). Killed, it leaves what a kill of vsm before its end leaves, which the recovery knows.
 * lvm2's commands are left to finish: a kill could leave a device suspended, their metadata
 * commits are atomic, and lvm2's VG lock makes the next command wait for one that still runs.
 */
public final class ProcessCommandRunner implements CommandRunner {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessCommandRunner.class);
    /** pve runs its tools with this PATH; sbin holds lvm2 and blkdiscard. */
    private static final String SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private static final int EXIT_ON_SIGINT = 128 + 2;
    /** lvm2's last line after an error in what it was asked. */
    private static final java.util.regex.Pattern HELP_POINTER =
            java.util.regex.Pattern.compile("Run `\\S+ --help' for more information\\.");

    private static final ChildProcesses CHILDREN = ChildProcesses.jvm();

    /** util-linux's setpriv, which qemu-img runs under to die with vsm; null on a host without it. */
    private static final String SETPRIV = Files.isExecutable(Path.of("/usr/bin/setpriv")) ? "/usr/bin/setpriv" : null;

    private final boolean dryRun;
    private final Console console;
    private final Environment environment;
    private final Runnable beforeChange;

    /** Commands in this process's environment. */
    public ProcessCommandRunner(boolean dryRun, Console console) {
        this(dryRun, console, Environment.system(), () -> {});
    }

    /** @param extra variables set for every command, over this process's environment */
    public ProcessCommandRunner(boolean dryRun, Console console, Map<String, String> extra) {
        this(dryRun, console, Environment.system().with(extra), () -> {});
    }

    /**
     * @param environment  the commands' environment (vsm adds its {@code PATH} entries and {@code LC_ALL=C})
     * @param beforeChange runs before every changing command ({@link #run}, {@link #stream}), not
     *                     before queries; it throws to stop the change (a lost cluster lock)
     */
    public ProcessCommandRunner(boolean dryRun, Console console, Environment environment, Runnable beforeChange) {
        this.dryRun = dryRun;
        this.console = requireNonNull(console, "console");
        this.environment = requireNonNull(environment, "environment");
        this.beforeChange = requireNonNull(beforeChange, "beforeChange");
    }

    @Override
    public Result query(Command command) {
        return execute(command, false);
    }

    @Override
    public Result run(Command command) {
        if (dryRun) {
            console.info("+ " + render(command));
            return new Result(0, "", "");
        }
        beforeChange.run();
        TestPause.before(program(command));
        return execute(command, diesWithVsm(command));
    }

    /** Whether a changing command dies with vsm (see the class comment): qemu-img's, where setpriv is. */
    private static boolean diesWithVsm(Command command) {
        return SETPRIV != null && program(command).equals("qemu-img");
    }

    /** The file name of the command's program ({@code lvremove}), for {@link TestPause}. */
    private static String program(Command command) {
        String program = command.argv().get(0);
        return program.substring(program.lastIndexOf('/') + 1);
    }

    /** True when changing commands are printed, not run. */
    public boolean dryRun() {
        return dryRun;
    }

    /**
     * Runs a reading command whose exit status is an answer ({@code qemu-img compare}, {@code check}):
     * the result carries it instead of a failure. Still fails when the command cannot start or
     * times out, and raises {@link InterruptedCommandException} when vsm is being stopped.
     */
    public Result queryStatus(Command command) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = execute(command, out, err, false);
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The shell line a command stands for, with its working directory when it has one. */
    public static String render(Command command) {
        String line = ShellQuote.join(command.argv());
        return command.workDir() == null
                ? line
                : "cd " + ShellQuote.quote(command.workDir().toString()) + " && " + line;
    }

    /**
     * Runs a changing command as {@link #run} does, handing its output to {@code listener} line
     * by line while it runs (for progress). Under dry-run it is printed, not run, and the
     * listener hears nothing.
     */
    public Result stream(Command command, OutputListener listener) {
        if (dryRun) {
            console.info("+ " + render(command));
            return new Result(0, "", "");
        }
        beforeChange.run();
        TestPause.before(program(command));
        LineSplitter out = new LineSplitter(OutputListener.Channel.STDOUT, listener);
        LineSplitter err = new LineSplitter(OutputListener.Channel.STDERR, listener);
        int exit = execute(command, out, err, diesWithVsm(command));
        return finish(command, exit, out.text(), err.text());
    }

    private Result execute(Command command, boolean diesWithVsm) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = execute(command, out, err, diesWithVsm);
        return finish(command, exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * Starts the command, pumps its outputs into {@code out} and {@code err}, and returns its exit
     * status. {@code diesWithVsm}: it runs under {@code setpriv --pdeathsig KILL}; the parent whose
     * death kills it is the thread that starts it, which waits here until it ends.
     */
    private int execute(Command command, OutputStream out, OutputStream err, boolean diesWithVsm) {
        List<String> argv = command.argv();
        if (CHILDREN.stopping()) {
            throw new InterruptedCommandException(
                    String.format("not starting '%s': vsm is being stopped", ShellQuote.join(argv)));
        }
        CommandLine line = new CommandLine(diesWithVsm ? SETPRIV : argv.get(0));
        if (diesWithVsm) {
            line.addArguments(new String[] {"--pdeathsig", "KILL", "--", argv.get(0)}, false);
        }
        for (String arg : argv.subList(1, argv.size())) {
            line.addArgument(arg, false);
        }
        DefaultExecutor.Builder<?> builder =
                DefaultExecutor.builder().setExecuteStreamHandler(new PumpStreamHandler(out, err));
        if (command.workDir() != null) {
            builder.setWorkingDirectory(command.workDir().toFile());
        }
        DefaultExecutor executor = builder.get();
        executor.setExitValues(null);
        executor.setProcessDestroyer(CHILDREN);
        ExecuteWatchdog watchdog = null;
        if (command.timeout() != null) {
            watchdog = ExecuteWatchdog.builder().setTimeout(command.timeout()).get();
            executor.setWatchdog(watchdog);
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("run: {}", render(command)); // quoting 10,000 arguments is worth skipping when nobody reads it
        }
        int exit;
        CHILDREN.beforeStart();
        try {
            exit = executor.execute(line, environment());
        } catch (ExecuteException e) {
            exit = e.getExitValue();
        } catch (IOException e) {
            throw StorageException.failed(
                    e, "command '%s' failed: %s", ShellQuote.join(argv), firstLine(e.getMessage()));
        } finally {
            CHILDREN.afterStart();
        }
        if (watchdog != null && watchdog.killedProcess()) {
            throw StorageException.failed("command '%s' failed: got timeout", ShellQuote.join(argv));
        }
        if (CHILDREN.stopping() || ChildProcesses.endedOnSignal(exit)) {
            String how = !ChildProcesses.endedOnSignal(exit)
                    ? "as vsm is being stopped"
                    : exit == EXIT_ON_SIGINT ? "by SIGINT" : "by SIGTERM";
            throw new InterruptedCommandException(
                    String.format("command '%s' was stopped %s", ShellQuote.join(argv), how));
        }
        return exit;
    }

    private static Result finish(Command command, int exit, String stdout, String stderr) {
        if (exit != 0) {
            String last = cause(stderr);
            Stderr whole = stderr.isBlank() ? null : new Stderr(command, stderr);
            String prefix = command.errorPrefix();
            if (prefix != null) {
                throw StorageException.failed(whole, "%s: %s", prefix, last.isEmpty() ? "exit code " + exit : last);
            }
            throw StorageException.failed(
                    whole,
                    "command '%s' failed: %s",
                    ShellQuote.join(command.argv()),
                    last.isEmpty() ? "exit code " + exit : "exit code " + exit + " - " + last);
        }
        if (!stderr.isBlank() && LOG.isDebugEnabled()) {
            logStderr(command, stderr);
        }
        return new Result(exit, stdout, stderr);
    }

    /**
     * What a command said on stderr while succeeding, for {@code --verbose} only: lvm2's warnings
     * ("Activation disabled" on a host without device-mapper, a device's "No medium found"),
     * qemu-img's notes. pve prints them; vsm keeps a successful command quiet.
     */
    private static void logStderr(Command command, String stderr) {
        String tool = command.argv().get(0);
        stderr.lines()
                .map(String::strip)
                .filter(line -> !line.isEmpty())
                .forEach(line -> LOG.debug("{}: {}", tool, line));
    }

    /**
     * Everything a failed command wrote to stderr, the cause of vsm's one-line error: lvm2 says
     * why in the lines before its last ({@code Logical volume vg/x in use.} before {@code Cannot
     * deactivate logical volume vg/x.}), and {@code --verbose} prints them with the stack trace.
     */
    static final class Stderr extends Exception {
        private static final long serialVersionUID = 1L;

        Stderr(Command command, String stderr) {
            super("stderr of " + command.argv().get(0) + ":\n" + stderr.stripTrailing(), null, false, false);
        }
    }

    private Map<String, String> environment() {
        Map<String, String> env = new HashMap<>(environment.asMap());
        String path = env.getOrDefault("PATH", "");
        env.put("PATH", path.isEmpty() ? SYSTEM_PATH : path + ":" + SYSTEM_PATH);
        env.put("LC_ALL", "C");
        return env;
    }

    /**
     * The line of a failed command's stderr that says why: the last one that is neither a warning
     * nor a pointer to the help. lvm2 prints {@code WARNING: This metadata update is NOT backed up.}
     * after its error when metadata backups are off, and {@code Run `lvcreate --help' for more
     * information.} after an error in what it was asked ({@code striped: Required device-mapper
     * target(s) not detected in your kernel.}); the error is the line before. Only such lines:
     * the last of them.
     */
    static String cause(String stderr) {
        String[] lines = stderr.strip().split("\n");
        for (int i = lines.length - 1; i >= 0; i--) {
            String line = lines[i].strip();
            if (!line.isEmpty()
                    && !line.startsWith("WARNING:")
                    && !HELP_POINTER.matcher(line).matches()) {
                return line;
            }
        }
        return lastLine(stderr);
    }

    static String lastLine(String text) {
        String[] lines = text.strip().split("\n");
        return lines.length == 0 ? "" : lines[lines.length - 1].strip();
    }

    private static String firstLine(String text) {
        return text == null ? "unknown error" : text.strip().split("\n", 2)[0];
    }
}
