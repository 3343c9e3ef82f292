package dev.vsm.cli.command;

import dev.vsm.server.access.AccessFile;
import dev.vsm.server.access.Privilege;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;

/** {@code vsm acl list}: every grant (pveum's {@code acl list}). */
@Command(name = "list", description = "List the grants: path, user or token, privileges, propagate.")
public final class AclListCommand extends AccessCommand {
    @Override
    void execute() {
        AccessFile.Contents c = access(() -> accessFile().read());
        List<Map<String, Object>> rows = c.grants().stream()
                .map(g -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("path", g.path());
                    m.put("ugid", g.subject());
                    m.put("type", g.subject().contains("!") ? "token" : "user");
                    m.put("privs", privs(g));
                    m.put("propagate", g.propagate() ? 1 : 0);
                    return m;
                })
                .toList();
        output.print(
                out(),
                rows,
                o -> rows.forEach(r -> o.println(r.get("path") + " " + r.get("ugid") + " " + r.get("privs")
                        + " propagate=" + r.get("propagate"))));
    }

    private static String privs(AccessFile.Grant g) {
        return g.privileges().stream().map(Privilege::pveName).collect(Collectors.joining(","));
    }
}
