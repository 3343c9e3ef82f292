package dev.vsm.cli.command;

import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm scan lvmthin <vg>}: the thin pools of a volume group, one name per line (pvesm scan
 * lvmthin), sorted by name; in JSON with their sizes and use in bytes, as pve's API gives them.
 * The lvmthin plugin answers ({@code StoragePlugin.scan}).
 */
@Command(name = "lvmthin", description = "List the thin pools of an LVM volume group (one per line).")
public final class ScanLvmThinCommand extends VsmCommand {
    @Parameters(index = "0", paramLabel = "VG", description = "the volume group")
    String vg;

    @Override
    void execute() {
        ScanLvmCommand.printRows(this, ScanLvmCommand.scan(this, "lvmthin", List.of(vg)));
    }
}
