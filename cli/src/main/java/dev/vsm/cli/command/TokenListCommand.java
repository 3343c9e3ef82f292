package dev.vsm.cli.command;

import dev.vsm.server.access.AccessFile;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code vsm token list}: the tokens (never their secrets). */
@Command(name = "list", description = "List the API tokens (their ids; secrets are not kept).")
public final class TokenListCommand extends AccessCommand {
    @Override
    void execute() {
        AccessFile.Contents c = access(() -> accessFile().read());
        List<Map<String, Object>> rows = c.tokens().values().stream()
                .map(t -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("full-tokenid", t.id());
                    m.put("privsep", t.privsep() ? 1 : 0);
                    return m;
                })
                .toList();
        output.print(
                out(),
                rows,
                o -> c.tokens().values().forEach(t -> o.println(t.id() + (t.privsep() ? "" : " (privsep 0)"))));
    }
}
