package dev.vsm.cli.command;

import dev.vsm.config.ConfigLocation;
import dev.vsm.config.ConfigStore;
import dev.vsm.config.StorageConfigs;
import dev.vsm.spi.StorageException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code vsm cluster init --from FILE}: checks a storage.yaml and stores its storages at
 * {@code <root>/config}, in a tree only vsm may change; creates the cluster secret first when
 * there is none. {@code --force} alone makes an existing tree vsm's alone, keeping its configuration.
 */
@Command(
        name = "init",
        description = "Store the storages of a storage.yaml in ZooKeeper (<root>/config), after checking it,"
                + " in a tree only vsm's identity (the cluster secret, created if absent) may change.")
public final class ClusterInitCommand extends ChangingCommand {
    @Option(
            names = "--from",
            paramLabel = "FILE",
            description = "the storage.yaml whose storages the cluster gets (required unless --force)")
    Path from;

    @Option(
            names = "--force",
            description = "replace a configuration that is already there, and make a tree others may change"
                    + " vsm's alone; without --from the stored configuration is kept")
    boolean force;

    @Override
    void execute() {
        var cluster = session().cluster();
        Path secret = cluster.settings().secretFile();
        boolean secretExisted = Files.exists(secret, LinkOption.NOFOLLOW_LINKS);
        if (from == null) {
            if (!force) {
                throw StorageException.badInput(
                        "missing --from FILE: give the storage.yaml whose storages the cluster gets"
                                + " (--force alone makes the stored configuration's tree vsm's alone)");
            }
            cluster.init(null, true, dryRun(), this::dryRunLine);
            if (!dryRun()) {
                out().printf("%s is vsm's alone%n", cluster.settings().root());
                createdSecret(secret, secretExisted);
            }
            return;
        }
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
        cluster.init(yaml, force, dryRun(), this::dryRunLine);
        if (!dryRun()) {
            out().printf(
                            "stored %d storage(s) from %s at %s%n",
                            configs.ids().size(),
                            location.file(),
                            cluster.settings().configPath());
            createdSecret(secret, secretExisted);
        }
    }

    private void dryRunLine(String line) {
        if (dryRun()) {
            out().println(line);
        }
    }

    private void createdSecret(Path secret, boolean existed) {
        if (!existed) {
            out().printf(
                            "created the cluster secret %s: copy it to the same path on every node, root's with mode 0600"
                                    + " (scp -p)%n",
                            secret);
        }
    }
}
