package dev.vsm.cli.command;

import dev.vsm.config.ConfigLocation;
import dev.vsm.config.ConfigStore;
import dev.vsm.config.StorageConfigs;
import dev.vsm.spi.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vsm cluster init --from FILE}: checks a storage.yaml and stores its storages at {@code <root>/config}. */
@Command(
        name = "init",
        description = "Store the storages of a storage.yaml in ZooKeeper (<root>/config), after checking it.")
public final class ClusterInitCommand extends ChangingCommand {
    @Option(
            names = "--from",
            required = true,
            paramLabel = "FILE",
            description = "the storage.yaml whose storages the cluster gets")
    Path from;

    @Option(names = "--force", description = "replace a configuration that is already there")
    boolean force;

    @Override
    void execute() {
        var cluster = session().cluster();
        if (!Files.exists(from)) {
            throw StorageException.badInput(
                    "file '%s' does not exist: give the storage.yaml whose storages the cluster gets", from);
        }
        ConfigLocation location =
                new ConfigLocation(from, true, session().location().defaultLocalDir());
        ConfigStore source =
                new ConfigStore(location, session()::schema, session().locks());
        if (source.cluster().isPresent()) {
            throw StorageException.badInput(
                    "%s has a 'cluster' block: give a storage.yaml with the storages to store", location.file());
        }
        StorageConfigs configs = source.load();
        configs.warnings().forEach(w -> vsm().err().println("warning: " + w));
        byte[] yaml = source.storagesYaml(configs);
        cluster.init(yaml, force, dryRun(), line -> {
            if (dryRun()) {
                out().println(line);
            }
        });
        if (!dryRun()) {
            out().printf(
                            "stored %d storage(s) from %s at %s%n",
                            configs.ids().size(),
                            location.file(),
                            cluster.settings().configPath());
        }
    }
}
