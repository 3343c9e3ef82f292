package dev.vsm.cli.command;

import dev.vsm.spi.VolumeId;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code vsm create-base <volume>}: turn a volume into a read-only base (template) volume. */
@Command(name = "create-base", description = "Turn a volume into a read-only base (template) volume for linked clones.")
public final class CreateBaseCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Override
    void execute() {
        VolumeId base = session().manager().createBase(VolumeId.parse(volume));
        output.print(
                out(),
                Map.of("volid", base.toString()),
                o -> o.println(
                        (dryRun() ? "would create base volume '" : "successfully created base volume '") + base + "'"));
    }
}
