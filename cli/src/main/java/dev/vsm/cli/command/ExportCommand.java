package dev.vsm.cli.command;

import dev.vsm.cli.support.ProgressOption;
import dev.vsm.progress.ProgressOutput;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.transfer.VolumeExporter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm export <volid> <format> <file|->}: a volume as a pve stream (pvesm export). With
 * {@code -} the stream goes to standard output and every message to standard error; a file must
 * not exist yet, is created with mode 0600 and is removed again when the export fails.
 */
@Command(
        name = "export",
        description = "Write a volume as a stream: raw+size, qcow2+size, vmdk+size or tar+size (pvesm export).",
        footer = {
            "",
            "FILE - is standard output (messages then go to standard error). The stream is an 8-byte little-endian "
                    + "size, then the data.",
            "Example: vsm export local:100/vm-100-disk-0.raw raw+size - | vsm import-stream "
                    + "other:100/vm-100-disk-0.raw raw+size -"
        })
public final class ExportCommand extends VsmCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Parameters(index = "1", paramLabel = "FORMAT", description = "raw+size, qcow2+size, vmdk+size or tar+size")
    String format;

    @Parameters(index = "2", paramLabel = "FILE")
    String file;

    @Mixin
    StreamOptions stream;

    @Option(
            names = "--snapshot-list",
            paramLabel = "LIST",
            split = ",",
            description =
                    "the snapshots to transfer, in order (implies --with-snapshots 1, as in pve; a qcow2+size stream "
                            + "carries all of the image's snapshots, and each listed one must be among them)")
    List<String> snapshotList;

    @Mixin
    ProgressOption progress;

    @Override
    boolean stdoutIsData() {
        return file.equals("-");
    }

    @Override
    void execute() {
        VolumeId volid = VolumeId.parse(volume);
        StreamFormat fmt = StreamFormat.parse(format);
        VolumeExporter.Snapshots snapshots =
                new VolumeExporter.Snapshots(stream.withSnapshots(), stream.snapshot(), stream.base(), snapshotList());
        Path target = StreamOptions.file(file);
        if (target == null) {
            if (ProgressOutput.stdoutIsTerminal() && out() == System.out) {
                throw StorageException.badInput(
                        "refusing to write a %s stream to a terminal: redirect it or name a file", fmt);
            }
            // the process's own standard output unbuffered; an in-process run's (Main.run) as given
            OutputStream stdout = out() == System.out ? new FileOutputStream(FileDescriptor.out) : out();
            session().transfers().exporter().export(volid, fmt, snapshots, stdout, stream.limit(session(), volid));
            return;
        }
        var limit = stream.limit(session(), volid);
        OutputStream out = create(target);
        boolean done = false;
        try (out) {
            session().transfers().exporter().export(volid, fmt, snapshots, out, limit);
            done = true;
        } catch (IOException e) {
            throw StorageException.failed(e, "writing '%s' failed: %s", target, e.getMessage());
        } finally {
            if (!done) {
                deleteQuietly(target);
            }
        }
    }

    /** pve's {@code split_list}: names separated by commas, semicolons or white space. */
    private List<String> snapshotList() {
        if (snapshotList == null) {
            return null;
        }
        List<String> names = new ArrayList<>();
        for (String part : snapshotList) {
            for (String name : part.split("[,;\\s\\x00]+")) {
                if (!name.isEmpty()) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    private static OutputStream create(Path target) {
        try {
            // 0600 (less the umask) from the start: a guest's disk in a file is no more readable by
            // other local users than the volume it came from
            return Channels.newOutputStream(Files.newByteChannel(
                    target,
                    Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))));
        } catch (FileAlreadyExistsException e) {
            throw StorageException.badInput("file '%s' already exists", target);
        } catch (IOException e) {
            throw StorageException.badInput("cannot create '%s': %s", target, e.getMessage());
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // the failure being reported matters more
        }
    }
}
