package dev.vsm.cli.command;

import dev.vsm.spi.StorageApi;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code vsm apiinfo}: the storage plugin API version and age (pvesm apiinfo). */
@Command(name = "apiinfo", description = "Print the storage plugin API version and age.")
public final class ApiInfoCommand extends VsmCommand {
    @Override
    void execute() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("apiver", StorageApi.VERSION);
        m.put("apiage", StorageApi.AGE);
        output.print(out(), m, o -> {
            o.println("APIVER " + StorageApi.VERSION);
            o.println("APIAGE " + StorageApi.AGE);
        });
    }
}
