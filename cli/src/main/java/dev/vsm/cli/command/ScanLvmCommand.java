package dev.vsm.cli.command;

import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;

/**
 * {@code vsm scan lvm}: the LVM volume groups of this host, one name per line (pvesm scan lvm),
 * sorted by name; in JSON with size and free bytes, as pve's API gives them. The lvm plugin
 * answers ({@code StoragePlugin.scan}).
 */
@Command(name = "lvm", description = "List the LVM volume groups (one per line).")
public final class ScanLvmCommand extends VsmCommand {
    @Override
    void execute() {
        printRows(this, scan(this, "lvm", List.of()));
    }

    /** Asks the plugin of {@code type} what {@code vsm scan <type> args} lists. */
    static List<Map<String, Object>> scan(VsmCommand command, String type, List<String> args) {
        var session = command.session();
        return session.registry().require(type).scan(args, session.context());
    }

    /** The rows as JSON, or their names (each row's first entry) one per line. */
    static void printRows(VsmCommand command, List<Map<String, Object>> rows) {
        command.output.print(
                command.out(),
                rows,
                o -> rows.forEach(row -> o.println(row.values().iterator().next())));
    }
}
