package dev.vsm.cli.command;

import dev.vsm.cli.support.Args;
import dev.vsm.spi.VolumeId;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code vsm rename <volume> <target-vmid> [--name NAME]}: give a volume another owner or name (pve's rename_volume). */
@Command(name = "rename", description = "Give a volume another owner (VMID) and/or name; the data is not copied.")
public final class RenameCommand extends ChangingCommand {
    @Parameters(index = "0", paramLabel = "VOLUME")
    String volume;

    @Parameters(index = "1", paramLabel = "TARGET-VMID")
    String targetVmid;

    @Option(
            names = "--name",
            paramLabel = "NAME",
            description = "the new name (default: the target's next free vm-<vmid>-disk-<n>)")
    String name;

    @Override
    void execute() {
        VolumeId source = VolumeId.parse(volume);
        int owner = Args.vmid(targetVmid);
        VolumeId renamed = session().manager().rename(source, owner, name);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("volid", source.toString());
        m.put("new-volid", renamed.toString());
        m.put("dry-run", dryRun());
        output.print(
                out(),
                m,
                o -> o.println((dryRun() ? "would rename '" : "renamed '") + source + "' to '" + renamed + "'"));
    }
}
