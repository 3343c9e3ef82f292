package dev.vsm.cli.command;

import dev.vsm.cli.support.OutputOptions;
import dev.vsm.cli.support.ProgressOption;
import dev.vsm.cli.support.Session;
import dev.vsm.cli.support.Vsm;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every subcommand shares: the global options, the output format, and a lazily opened
 * {@link Session}. The global options live on the root command, however deep the subcommand
 * ({@code vsm scan lvm}).
 */
abstract class VsmCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    OutputOptions output;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "show this help and exit")
    boolean help;

    private Session session;

    /** Whether this command is a dry run; changing commands override it. */
    boolean dryRun() {
        return false;
    }

    /** Whether this command changes something (in cluster mode it then needs quorum); changing commands override it. */
    boolean changes() {
        return false;
    }

    /** Whether progress is silenced: {@code --quiet} of a command with a {@code ProgressOption} mixin named {@code progress}. */
    boolean quiet() {
        CommandSpec progress = spec.mixins().get("progress");
        return progress != null && ((ProgressOption) progress.userObject()).quiet();
    }

    /** Whether standard output carries data ({@code -} as the output file): messages then go to stderr. */
    boolean stdoutIsData() {
        return false;
    }

    Session session() {
        if (session == null) {
            session = new Session(vsm(), dryRun(), quiet(), stdoutIsData(), changes());
        }
        return session;
    }

    Vsm vsm() {
        return (Vsm) spec.root().userObject();
    }

    PrintStream out() {
        return vsm().out();
    }

    @Override
    public final Integer call() {
        try {
            execute();
        } finally {
            if (session != null) {
                session.close();
            }
        }
        return 0;
    }

    abstract void execute();
}
