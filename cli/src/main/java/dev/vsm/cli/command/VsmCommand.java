package dev.vsm.cli.command;

import dev.vsm.cli.OutputOptions;
import dev.vsm.cli.Session;
import dev.vsm.cli.Vsm;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

/** What every subcommand shares: the global options, the output format, and a lazily opened {@link Session}. */
abstract class VsmCommand implements Callable<Integer> {
    @ParentCommand
    Vsm vsm;

    @Mixin
    OutputOptions output;

    private Session session;

    /** Whether this command is a dry run; changing commands override it. */
    boolean dryRun() {
        return false;
    }

    Session session() {
        if (session == null) {
            session = new Session(vsm, dryRun());
        }
        return session;
    }

    PrintStream out() {
        return vsm.out();
    }

    @Override
    public final Integer call() {
        execute();
        return 0;
    }

    abstract void execute();
}
