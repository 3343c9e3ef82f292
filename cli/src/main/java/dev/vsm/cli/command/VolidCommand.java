package dev.vsm.cli.command;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code vsm volid <path>}: the volume id of a file path (pve's path_to_volume_id). */
@Command(name = "volid", description = "Print the volume id of a file path; exit 2 when no storage owns it.")
public final class VolidCommand extends VsmCommand {
    /** As typed: a {@link Path} would drop a trailing slash. */
    @Parameters(index = "0", paramLabel = "PATH")
    String path;

    @Override
    void execute() {
        Path file = file();
        VolumeId volid = session().manager().volumeIdForPath(file);
        output.print(out(), Map.of("volid", volid.toString(), "path", file.toString()), o -> o.println(volid));
    }

    /**
     * The path; refused when it cannot name a volume. A trailing slash makes the file system take
     * the path only if it leads to a directory (as pve's abs_path does): a device or an image
     * file so written is no volume; a container's subvol directory is.
     */
    private Path file() {
        try {
            Path file = Path.of(path);
            if (path.endsWith("/") && !Files.isDirectory(file)) {
                throw notAVolume();
            }
            return file;
        } catch (InvalidPathException e) {
            throw notAVolume();
        }
    }

    private StorageException notAVolume() {
        return StorageException.badInput("path '%s' is not a volume of any storage", VolumeId.printable(path));
    }
}
