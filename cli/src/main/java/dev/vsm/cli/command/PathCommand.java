package dev.vsm.cli.command;

import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeName;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code vsm path <volume>}: where a volume lives; nothing needs to exist (pvesm path). */
@Command(name = "path", description = "Print the file system path of a volume (nothing needs to exist).")
public final class PathCommand extends VsmCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Override
    void execute() {
        VolumeId volid = VolumeId.parse(volume);
        var manager = session().manager();
        VolumeName name = manager.parse(volid);
        Path path = manager.path(volid);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("volid", volid.toString());
        m.put("path", path.toString());
        m.put("vtype", name.type().id());
        m.put("name", name.name());
        m.put("vmid", name.vmid());
        m.put("basename", name.baseName());
        m.put("basevmid", name.baseVmid());
        m.put("isBase", name.isBase());
        m.put("format", name.format());
        output.print(out(), m, o -> o.println(path));
    }
}
