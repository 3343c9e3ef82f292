package dev.vsm.cli.command;

import dev.vsm.cli.support.ProgressOption;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeName;
import dev.vsm.transfer.StreamImporter;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm import-stream <volid> <format> <file|->}: a new volume from a pve stream (pvesm
 * import). A truncated or corrupt stream, or one whose size header lies, leaves no volume behind.
 */
@Command(
        name = "import-stream",
        description = "Make a new volume (or iso, vztmpl, snippets or import file) from a raw+size, "
                + "qcow2+size, vmdk+size or tar+size stream (pvesm import).",
        footer = {
            "",
            "FILE - is standard input; tcp://<ip or cidr> listens on that address (or this host's one address in "
                    + "that network) at the first free port of 60000-60050, prints the address and the port, one a line, and takes one "
                    + "connection within 30 s; unix://<path> listens on a new socket there, prints 'ready' and takes one connection "
                    + "within 30 s; anything else is a file. VOLUME names the new volume; it must not exist (see --allow-rename)."
        })
public final class ImportStreamCommand extends ChangingCommand {
    /** pvesm's pattern for {@code --delete-snapshot}. */
    private static final Pattern DELETE_SNAPSHOT = Pattern.compile("[a-z0-9_\\-]{1,80}", Pattern.CASE_INSENSITIVE);

    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Parameters(index = "1", paramLabel = "FORMAT", description = "raw+size, qcow2+size, vmdk+size or tar+size")
    String format;

    @Parameters(index = "2", paramLabel = "FILE")
    String file;

    @Mixin
    StreamOptions stream;

    @Option(
            names = "--delete-snapshot",
            paramLabel = "NAME",
            description = "delete this snapshot from the new volume once imported (needs --with-snapshots 1)")
    String deleteSnapshot;

    @Option(
            names = "--allow-rename",
            paramLabel = "0|1",
            arity = "0..1",
            fallbackValue = "1",
            description = "when VOLUME exists, import under the next free name instead of failing (default: 0); "
                    + "the line 'successfully imported' names the volume made")
    String allowRename = "0";

    @Mixin
    ProgressOption progress;

    @Override
    void execute() {
        VolumeId target = VolumeId.parse(volume);
        StreamFormat fmt = StreamFormat.parse(format);
        StreamImporter.Options options = new StreamImporter.Options(
                stream.withSnapshots(),
                stream.snapshot(),
                stream.base(),
                StreamOptions.snapshotName("delete-snapshot", deleteSnapshot, DELETE_SNAPSHOT, 80),
                StreamOptions.bool("allow-rename", allowRename));
        Long asked = stream.bwlimit;
        StreamImporter importer = session().transfers().streamImporter();
        VolumeName name = session().manager().parse(target);
        boolean image = name.type() == ContentType.IMAGES || name.type() == ContentType.ROOTDIR;
        StreamImporter.Target to = image ? StreamImporter.Target.of(session().manager(), target) : null;
        VolumeId volid;
        if (StreamSource.isSocket(file)) {
            if (asked != null) {
                throw StorageException.badInput("--bwlimit reads a file or standard input; limit the sender instead "
                        + "(vsm export --bwlimit)");
            }
            if (image) {
                importer.checkOptions(to, fmt, options);
            } else {
                importer.checkContent(target, fmt, options);
            }
            try (InputStream in = StreamSource.accept(file, out())) {
                volid = image
                        ? importer.importStream(to, fmt, options, in, file, dryRun())
                        : importer.importContent(target, fmt, options, in, file, dryRun());
            } catch (IOException e) {
                throw StorageException.failed(e, "closing the connection failed: %s", e.getMessage());
            }
        } else if (StreamOptions.file(file) == null && vsm().in() != null) {
            // standard input given to an in-process run (Main.run): read here, not the JVM's own
            if (asked != null) {
                throw StorageException.badInput("--bwlimit reads a file or vsm's own standard input; limit the sender "
                        + "instead (vsm export --bwlimit)");
            }
            InputStream in = vsm().in();
            volid = image
                    ? importer.importStream(to, fmt, options, in, "standard input", dryRun())
                    : importer.importContent(target, fmt, options, in, "standard input", dryRun());
        } else {
            var limit = stream.limit(session(), target);
            volid = image
                    ? importer.importStream(to, fmt, options, StreamOptions.file(file), limit, dryRun())
                    : importer.importContent(target, fmt, options, StreamOptions.file(file), limit, dryRun());
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("volid", volid.toString());
        result.put("dry-run", dryRun());
        output.print(
                out(), result, o -> o.println((dryRun() ? "would import '" : "successfully imported '") + volid + "'"));
    }
}
