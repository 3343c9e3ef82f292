package dev.vsm.cli.command;

import picocli.CommandLine.Command;

/** {@code vsm cluster export}: the storage configuration stored in ZooKeeper, byte for byte. */
@Command(name = "export", description = "Print the storage configuration stored in ZooKeeper, exactly.")
public final class ClusterExportCommand extends VsmCommand {
    @Override
    void execute() {
        byte[] yaml = session().cluster().export();
        out().write(yaml, 0, yaml.length);
        out().flush();
    }
}
