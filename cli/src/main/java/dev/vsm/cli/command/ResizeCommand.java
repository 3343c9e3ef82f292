package dev.vsm.cli.command;

import dev.vsm.cli.support.Args;
import dev.vsm.spi.VolumeId;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
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

    @Option(
            names = "--snapshot",
            paramLabel = "SNAPSHOT",
            description = "grow this snapshot's layer instead (dir and lvm with snapshot-as-volume-chain), as a manager"
                    + " does before committing a larger child into it")
    String snapshot;

    @Override
    void execute() {
        VolumeId volid = VolumeId.parse(volume);
        boolean grow = size.startsWith("+");
        long bytes = Math.multiplyExact(Args.sizeKib(grow ? size.substring(1) : size, false), 1024L);
        long done = session().manager().resize(volid, bytes, grow, snapshot);
        output.print(
                out(),
                json(volid, done),
                o -> o.println((dryRun() ? "would resize '" : "resized '") + volid
                        + (snapshot == null ? "" : "' snapshot '" + snapshot) + "' to " + done + " bytes"));
    }

    private Map<String, Object> json(VolumeId volid, long done) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("volid", volid.toString());
        if (snapshot != null) {
            m.put("snapshot", snapshot);
        }
        m.put("size", done);
        return m;
    }
}
