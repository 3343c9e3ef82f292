package dev.vsm.cli.command;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code vsm user remove USER@REALM}: the password, the user's tokens and every grant to either. */
@Command(name = "remove", description = "Remove a user's password, its API tokens and their grants.")
public final class UserRemoveCommand extends AccessCommand {
    @Parameters(index = "0", paramLabel = "USER@REALM")
    String user;

    @Override
    void execute() {
        access(() -> {
            accessFile().removeUser(user);
            return null;
        });
        vsm().err().println("removed user " + user);
    }
}
