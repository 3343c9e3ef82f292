package dev.vsm.cli;

import dev.vsm.cli.support.Vsm;
import dev.vsm.env.Environment;
import dev.vsm.exec.ChildProcesses;
import dev.vsm.spi.StorageException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The {@code vsm} entry point: runs one command and maps what went wrong to the exit status
 * (0 success, 2 bad input, 1 the operation failed) and one line on stderr.
 */
public final class Main {
    private static final int REPORT_WAIT_SECONDS = 8;

    private Main() {}

    public static void main(String[] args) {
        CountDownLatch reported = new CountDownLatch(1);
        // a Thread subclass, not a lambda: the first lambda a JVM links costs it 5 ms (the training
        // run that archives the others does not run main)
        Runtime.getRuntime().addShutdownHook(new ReportWait(reported));
        int status = run(args, System.out, System.err);
        reported.countDown();
        System.exit(status);
    }

    private static final class ReportWait extends Thread {
        private final CountDownLatch reported;

        ReportWait(CountDownLatch reported) {
            super("vsm-report");
            this.reported = reported;
        }

        @Override
        public void run() {
            awaitReport(reported);
        }
    }

    /**
     * Ctrl-C or SIGTERM while an external command runs: {@link ChildProcesses} stops the child,
     * and the command unwinds with an {@link dev.vsm.spi.InterruptedCommandException} whose one
     * line (what was left for a later run) must reach stderr before the JVM halts. The JVM then
     * exits with the signal's status (130 or 143).
     */
    private static void awaitReport(CountDownLatch reported) {
        if (!ChildProcesses.jvm().childRunningOrStopped()) {
            return;
        }
        try {
            reported.await(REPORT_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One command on this process's standard input and environment. */
    public static int run(String[] argv, PrintStream out, PrintStream err) {
        return run(argv, null, out, err, Environment.system());
    }

    /** One command in this JVM with the given environment (tests, embedders); standard input is this process's. */
    public static int run(String[] argv, PrintStream out, PrintStream err, Environment env) {
        return run(argv, null, out, err, env);
    }

    /**
     * One command in this JVM, as {@code cli/vsm} would run it in a process of its own with this
     * standard input ({@code import-stream ... -}; null: this process's) and environment. The
     * working directory, umask and system properties are the JVM's.
     *
     * @return the exit status
     */
    public static int run(String[] argv, InputStream in, PrintStream out, PrintStream err, Environment env) {
        String[] args;
        try {
            args = PveSyntax.scanAlias(
                    PveSyntax.streamImport(Subcommands.expand(PveSyntax.help(Subcommands.expand(argv)))));
        } catch (StorageException e) {
            err.println(oneLine(e.getMessage()));
            return ExitCode.BAD_INPUT;
        }
        Vsm vsm = new Vsm(in, out, err, java.util.Objects.requireNonNull(env, "env"));
        CommandLine cli = new CommandLine(vsm);
        cli.setCommandName(programName());
        Subcommands.register(cli, args);
        try {
            args = PveSyntax.translate(cli, args);
        } catch (StorageException e) {
            err.println(oneLine(e.getMessage()));
            return ExitCode.BAD_INPUT;
        }
        if (java.util.Arrays.asList(args).contains("--verbose")
                || java.util.Arrays.asList(args).contains("-v")) {
            System.setProperty("VSM_LOG_LEVEL", "DEBUG"); // read by LogSetup when the first logger is made
        }
        cli.setOut(new PrintWriter(out, true, Charset.defaultCharset()));
        cli.setErr(new PrintWriter(err, true, Charset.defaultCharset()));
        cli.setParameterExceptionHandler(Main::badParameters);
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> failure(e, vsm, err));
        return cli.execute(args);
    }

    /**
     * The name vsm was run under (the launcher passes it): {@code pvesm} through a symlink of that
     * name, so usage and errors name the command the user typed.
     */
    static String programName() {
        String name = System.getProperty("vsm.program", "");
        return name.matches("[A-Za-z0-9._-]{1,64}") ? name : "vsm";
    }

    private static int badParameters(ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        String help = cmd.getCommandSpec().qualifiedName(" ");
        cmd.getErr().println(oneLine(e.getMessage()) + " (see '" + help + " --help')");
        return ExitCode.BAD_INPUT;
    }

    private static int failure(Exception e, Vsm vsm, PrintStream err) {
        if (vsm.verbose()) {
            e.printStackTrace(err);
        }
        if (e instanceof StorageException se) {
            err.println(oneLine(se.getMessage()));
            return se.kind() == StorageException.Kind.BAD_INPUT ? ExitCode.BAD_INPUT : ExitCode.FAILED;
        }
        err.println("internal error: " + oneLine(String.valueOf(e))
                + (vsm.verbose() ? "" : " (run with --verbose for details)"));
        return ExitCode.FAILED;
    }

    static String oneLine(String message) {
        return message == null ? "unknown error" : message.strip().replace('\n', ' ');
    }

    /** vsm's exit statuses. */
    public static final class ExitCode {
        public static final int OK = 0;
        public static final int FAILED = 1;
        public static final int BAD_INPUT = 2;

        private ExitCode() {}
    }
}
