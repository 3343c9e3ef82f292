package dev.vsm.cli.command;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code vsm token remove USER@REALM TOKENID}: the token and its grants. */
@Command(name = "remove", description = "Remove an API token and its grants.")
public final class TokenRemoveCommand extends AccessCommand {
    @Parameters(index = "0", paramLabel = "USER@REALM")
    String user;

    @Parameters(index = "1", paramLabel = "TOKENID")
    String name;

    @Override
    void execute() {
        access(() -> {
            accessFile().removeToken(user, name);
            return null;
        });
        vsm().err().println("removed token " + user + "!" + name);
    }
}
