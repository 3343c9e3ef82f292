package dev.vsm.cli.support;

import static java.util.Objects.requireNonNull;

import dev.vsm.config.ConfigEdit;
import dev.vsm.config.ConfigLocation;
import dev.vsm.config.ConfigStore;
import dev.vsm.config.EditResult;
import dev.vsm.config.StorageConfigs;
import dev.vsm.engine.PluginRegistry;
import dev.vsm.engine.StorageManager;
import dev.vsm.engine.cluster.Cluster;
import dev.vsm.env.Environment;
import dev.vsm.lock.FileLocks;
import dev.vsm.runtime.VsmRuntime;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.StorageContext;
import dev.vsm.transfer.VolumeTransfers;
import dev.vsm.zeroout.DeviceWipe;
import java.util.Optional;

/**
 * What one command run works with: a {@link VsmRuntime} made from the command line's options
 * ({@code --config}, {@code --plugin-dir}, {@code --dry-run}, {@code --quiet}) and the run's
 * environment, with cluster mode's jars found by {@link ClusterLoader}. Each part is made on first
 * use, so that a command pays only for what it needs.
 */
public final class Session implements AutoCloseable {
    private final VsmRuntime runtime;

    public Session(Vsm vsm, boolean dryRun) {
        this(vsm, dryRun, false, false, false);
    }

    /**
     * @param quiet        no progress display ({@code --quiet})
     * @param stdoutIsData standard output carries data ({@code vsm export ... -}): every message,
     *                     progress included, goes to standard error
     * @param changing     the command changes something: in cluster mode it then needs quorum
     *                     (read-only commands fall back to the cached configuration)
     */
    public Session(Vsm vsm, boolean dryRun, boolean quiet, boolean stdoutIsData, boolean changing) {
        requireNonNull(vsm, "vsm");
        this.runtime = VsmRuntime.builder()
                .configFile(vsm.configOption())
                .pluginDirectory(vsm.pluginDirOption())
                .output(vsm.out(), vsm.err())
                .environment(vsm.environment())
                .dryRun(dryRun)
                .quiet(quiet)
                .stdoutIsData(stdoutIsData)
                .changing(changing)
                .cluster(new ClusterLoader())
                .classLoader(Session.class.getClassLoader())
                .build();
    }

    /** The environment vsm runs in: this process's, or the one {@link dev.vsm.cli.Main#run} was given. */
    public Environment environment() {
        return runtime.environment();
    }

    public boolean dryRun() {
        return runtime.dryRun();
    }

    public PluginRegistry registry() {
        return runtime.registry();
    }

    /** The schema of a type, for the configuration's checks. */
    public Optional<PluginSchema> schema(String type) {
        return runtime.schema(type);
    }

    public FileLocks locks() {
        return runtime.locks();
    }

    public ConfigStore configStore() {
        return runtime.configStore();
    }

    /** Applies a change to the configuration under its lock, with the plugins' hooks ({@link VsmRuntime#editConfig}). */
    public EditResult editConfig(ConfigEdit edit) {
        return runtime.editConfig(edit);
    }

    public ConfigLocation location() {
        return runtime.location();
    }

    /**
     * Whether this run's caller may change the storages: it may write the configuration file, or
     * there is none yet (the built-in default is the caller's own). pve lets who may change a
     * storage's configuration (its {@code Datastore.Allocate}) name a bandwidth limit above the
     * storage's; vsm asks the file's permissions, the one thing that decides who may run
     * {@code vsm set}.
     */
    public boolean mayChangeStorages() {
        java.nio.file.Path file = location().file();
        return java.nio.file.Files.notExists(file) || java.nio.file.Files.isWritable(file);
    }

    public Cluster cluster() {
        return runtime.cluster();
    }

    @Override
    public void close() {
        runtime.close();
    }

    public StorageConfigs config() {
        return runtime.config();
    }

    public StorageContext context() {
        return runtime.context();
    }

    public VolumeTransfers transfers() {
        return runtime.transfers();
    }

    public StorageManager manager() {
        return runtime.manager();
    }

    public DeviceWipe deviceWipe() {
        return runtime.deviceWipe();
    }
}
