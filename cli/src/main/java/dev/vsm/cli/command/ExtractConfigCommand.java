package dev.vsm.cli.command;

import dev.vsm.engine.Backups;
import dev.vsm.spi.VolumeId;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm extractconfig <volume>}: the guest configuration inside a vzdump archive (pvesm
 * extractconfig): tar, tar.gz, tar.lzo, tar.zst, tar.bz2, tgz, vma, vma.gz, vma.lzo, vma.zst, vma.bz2.
 */
@Command(name = "extractconfig", description = "Print the guest configuration inside a backup archive.")
public final class ExtractConfigCommand extends VsmCommand {
    @Parameters(index = "0", paramLabel = "VOLUME", description = "a backup's volume id")
    String volume;

    @Override
    void execute() {
        VolumeId volid = VolumeId.parse(volume);
        String config = new Backups(session().manager(), ZoneId.systemDefault()).extractConfig(volid);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("volid", volid.toString());
        json.put("config", config);
        output.print(out(), json, o -> o.print(config + "\n"));
    }
}
