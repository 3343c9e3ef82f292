package dev.vsm.cli.command;

import dev.vsm.server.access.AccessFile;
import dev.vsm.server.access.Privilege;
import dev.vsm.spi.StorageException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vsm acl modify PATH --tokens|--users ... --privs ...}: pveum's {@code acl modify}, with privileges in place of roles. */
@Command(
        name = "modify",
        description = "Grant privileges on a path to users or tokens (or take them away with --delete).")
public final class AclModifyCommand extends AccessCommand {
    @Parameters(index = "0", paramLabel = "PATH", description = "/, /storage or /storage/ID")
    String path;

    @Option(names = "--tokens", paramLabel = "LIST", description = "API tokens, USER@REALM!TOKENID (comma-separated)")
    String tokens;

    @Option(names = "--users", paramLabel = "LIST", description = "users, USER@REALM (comma-separated)")
    String users;

    @Option(
            names = "--privs",
            required = true,
            paramLabel = "LIST",
            description =
                    "Datastore.Audit, Datastore.Allocate, Datastore.AllocateSpace, Datastore.AllocateTemplate (comma-separated)")
    String privs;

    @Option(
            names = "--propagate",
            paramLabel = "0|1",
            defaultValue = "1",
            description = "the grant holds on the paths below too (pve's default 1)")
    int propagate;

    @Option(names = "--delete", description = "take the privileges away instead")
    boolean delete;

    @Override
    void execute() {
        List<String> subjects = new ArrayList<>();
        subjects.addAll(list(tokens));
        subjects.addAll(list(users));
        if (subjects.isEmpty()) {
            throw StorageException.badInput("give --tokens or --users");
        }
        if (propagate != 0 && propagate != 1) {
            throw StorageException.badInput("--propagate: use 0 or 1");
        }
        access(() -> {
            Set<Privilege> set = EnumSet.noneOf(Privilege.class);
            list(privs).forEach(p -> set.add(AccessFile.privilege(p)));
            accessFile().modifyAcl(path, subjects, set, propagate == 1, delete);
            return null;
        });
    }

    private static List<String> list(String text) {
        if (text == null || text.isBlank()) {
            return List.of();
        }
        return List.of(text.strip().split("\\s*[,;]\\s*"));
    }
}
