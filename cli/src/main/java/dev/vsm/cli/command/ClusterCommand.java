package dev.vsm.cli.command;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code vsm cluster <command>}: cluster mode's configuration in ZooKeeper, and what the cluster looks like. */
@Command(
        name = "cluster",
        mixinStandardHelpOptions = true,
        description = "Cluster mode: seed, export and inspect the storage configuration kept in ZooKeeper.",
        subcommands = {ClusterInitCommand.class, ClusterExportCommand.class, ClusterStatusCommand.class})
public final class ClusterCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(
                spec.commandLine(),
                "missing what to do: one of "
                        + String.join(", ", spec.subcommands().keySet()));
    }
}
