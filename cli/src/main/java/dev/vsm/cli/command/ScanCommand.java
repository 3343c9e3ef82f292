package dev.vsm.cli.command;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code vsm scan <type>}: look for storage that could be added (pvesm scan); one subcommand per type. */
@Command(
        name = "scan",
        mixinStandardHelpOptions = true,
        description = "Scan for storage (volume groups, ...).",
        subcommands = {ScanLvmCommand.class, ScanLvmThinCommand.class})
public final class ScanCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new ParameterException(
                spec.commandLine(),
                "missing what to scan: one of "
                        + String.join(", ", spec.subcommands().keySet()));
    }
}
