package dev.vsm.cli.command;

import dev.vsm.server.access.AccessFile;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code vsm user list}: the users with a password (never a hash). */
@Command(name = "list", description = "List the users who have a password for vsm serve.")
public final class UserListCommand extends AccessCommand {
    @Override
    void execute() {
        AccessFile.Contents c = access(() -> accessFile().read());
        List<Map<String, Object>> rows = c.users().keySet().stream()
                .map(id -> Map.<String, Object>of("userid", id))
                .toList();
        output.print(out(), rows, o -> c.users().keySet().forEach(o::println));
    }
}
