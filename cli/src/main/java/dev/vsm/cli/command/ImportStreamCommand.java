package dev.vsm.cli.command;

import dev.vsm.cli.support.ProgressOption;
import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.transfer.StreamImporter;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm import-stream <volid> <format> <file|->}: a new volume from a pve stream (pvesm
 * import). A truncated or corrupt stream, or one whose size header lies, leaves no volume behind.
 */
@Command(name = "import-stream", description = "Make a new volume from a raw+size or qcow2+size stream (pvesm import).",
        footer = {"", "FILE - is standard input. VOLUME names the new volume; it must not exist."})
public final class ImportStreamCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Parameters(index = "1", paramLabel = "FORMAT", description = "raw+size or qcow2+size")
    String format;

    @Parameters(index = "2", paramLabel = "FILE")
    String file;

    @Mixin
    StreamOptions stream;

    @Mixin
    ProgressOption progress;

    @Override
    void execute() {
        VolumeId target = VolumeId.parse(volume);
        StreamFormat fmt = StreamFormat.parse(format);
        boolean withSnapshots = stream.withSnapshots();
        var limit = stream.limit();
        var transfers = session().transfers();
        StreamImporter.Target to = StreamImporter.Target.of(session().manager(), target);
        VolumeId volid = transfers.streamImporter().importStream(to, fmt, withSnapshots, StreamOptions.file(file), limit, dryRun());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("volid", volid.toString());
        result.put("dry-run", dryRun());
        output.print(out(), result, o -> o.println((dryRun() ? "would import '" : "successfully imported '") + volid + "'"));
    }
}
