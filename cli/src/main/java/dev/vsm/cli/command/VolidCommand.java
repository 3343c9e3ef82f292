package dev.vsm.cli.command;

import dev.vsm.spi.VolumeId;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code vsm volid <path>}: the volume id of a file path (pve's path_to_volume_id). */
@Command(name = "volid", description = "Print the volume id of a file path; exit 2 when no storage owns it.")
public final class VolidCommand extends VsmCommand {
    @Parameters(index = "0", paramLabel = "PATH")
    Path path;

    @Override
    void execute() {
        VolumeId volid = session().manager().volumeIdForPath(path);
        output.print(out(), Map.of("volid", volid.toString(), "path", path.toString()), o -> o.println(volid));
    }
}
