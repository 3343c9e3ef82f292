package dev.vsm.cli.command;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vsm token add USER@REALM TOKENID}: pveum's {@code user token add}; the secret is shown once. */
@Command(
        name = "add",
        description =
                "Make an API token and print its secret, once: only its hash is kept (in access.json beside the configuration).")
public final class TokenAddCommand extends AccessCommand {
    @Parameters(index = "0", paramLabel = "USER@REALM", description = "the user the token belongs to")
    String user;

    @Parameters(index = "1", paramLabel = "TOKENID", description = "the token's name")
    String name;

    @Option(
            names = "--privsep",
            paramLabel = "0|1",
            defaultValue = "1",
            description = "privilege separation (pve's default 1): the token has its own grants, bounded by its user's")
    int privsep;

    @Override
    void execute() {
        if (privsep != 0 && privsep != 1) {
            throw dev.vsm.spi.StorageException.badInput("--privsep: use 0 or 1");
        }
        String secret = access(() -> accessFile().addToken(user, name, privsep == 1));
        String id = user + "!" + name;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("full-tokenid", id);
        m.put("info", Map.of("privsep", privsep));
        m.put("value", secret);
        output.print(out(), m, o -> {
            o.println("full-tokenid: " + id);
            o.println("value: " + secret);
            o.println("(the secret is shown only now; send it as 'Authorization: PVEAPIToken=" + id + "=<value>')");
        });
    }
}
