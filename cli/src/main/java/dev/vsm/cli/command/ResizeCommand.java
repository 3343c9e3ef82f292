package dev.vsm.cli.command;

import dev.vsm.cli.support.Args;
import dev.vsm.spi.VolumeId;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code vsm resize <volume> <size>}: grow a volume to a size, or by a size with a leading '+'. */
@Command(
        name = "resize",
        description = "Grow a volume to SIZE, or by SIZE with a leading '+'. Shrinking is refused.",
        footer = {"", Args.SIZE_HELP})
public final class ResizeCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Parameters(index = "1", paramLabel = "SIZE")
    String size;

    @Override
    void execute() {
        VolumeId volid = VolumeId.parse(volume);
        boolean grow = size.startsWith("+");
        long bytes = Math.multiplyExact(Args.sizeKib(grow ? size.substring(1) : size, false), 1024L);
        long done = session().manager().resize(volid, bytes, grow);
        output.print(
                out(),
                Map.of("volid", volid.toString(), "size", done),
                o -> o.println((dryRun() ? "would resize '" : "resized '") + volid + "' to " + done + " bytes"));
    }
}
