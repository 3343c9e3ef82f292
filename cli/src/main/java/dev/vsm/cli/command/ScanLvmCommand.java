package dev.vsm.cli.command;

import dev.vsm.lvm.Lvm;
import dev.vsm.lvm.VolumeGroup;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;

/**
 * {@code vsm scan lvm}: the LVM volume groups of this host, one name per line (pvesm scan lvm),
 * sorted by name; in JSON with size and free bytes, as pve's API gives them.
 */
@Command(name = "lvm", description = "List the LVM volume groups (one per line).")
public final class ScanLvmCommand extends VsmCommand {
    @Override
    void execute() {
        var context = session().context();
        List<VolumeGroup> groups = new Lvm(context.commands(), context.console()).vgs().groups().stream()
                .sorted(Comparator.comparing(VolumeGroup::name)).toList();
        output.print(out(), groups.stream().map(ScanLvmCommand::json).toList(), o -> groups.forEach(g -> o.println(g.name())));
    }

    private static Map<String, Object> json(VolumeGroup g) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("vg", g.name());
        m.put("size", g.size());
        m.put("free", g.free());
        return m;
    }
}
