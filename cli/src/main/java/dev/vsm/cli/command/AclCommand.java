package dev.vsm.cli.command;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code vsm acl <command>}: what users and tokens may do through {@code vsm serve} (pveum's {@code acl}). */
@Command(
        name = "acl",
        mixinStandardHelpOptions = true,
        description =
                "Grants of pve's Datastore.* privileges on /, /storage and /storage/ID for vsm serve: modify, list.",
        subcommands = {AclModifyCommand.class, AclListCommand.class})
public final class AclCommand implements Callable<Integer> {
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
