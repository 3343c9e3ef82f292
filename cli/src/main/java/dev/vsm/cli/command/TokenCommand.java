package dev.vsm.cli.command;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code vsm token <command>}: the API tokens {@code vsm serve} accepts. */
@Command(
        name = "token",
        mixinStandardHelpOptions = true,
        description = "API tokens for vsm serve (pve's USER@REALM!TOKENID): add, list, remove.",
        subcommands = {TokenAddCommand.class, TokenListCommand.class, TokenRemoveCommand.class})
public final class TokenCommand implements Callable<Integer> {
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
