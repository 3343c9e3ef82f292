package dev.vsm.cli.command;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code vsm user <command>}: the users who may log in to {@code vsm serve} with a password. */
@Command(
        name = "user",
        mixinStandardHelpOptions = true,
        description =
                "Users who log in to vsm serve with a password (pve's POST /access/ticket): passwd, list, remove.",
        subcommands = {UserPasswdCommand.class, UserListCommand.class, UserRemoveCommand.class})
public final class UserCommand implements Callable<Integer> {
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
