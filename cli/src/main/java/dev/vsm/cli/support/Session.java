package dev.vsm.cli.support;

import static java.util.Objects.requireNonNull;

import dev.vsm.engine.cluster.Cluster;
import dev.vsm.config.ClusterSettings;
import dev.vsm.config.ConfigHooks;
import dev.vsm.config.ConfigLocation;
import dev.vsm.config.ConfigStore;
import dev.vsm.config.StorageConfigs;
import dev.vsm.engine.DefaultStorageContext;
import dev.vsm.engine.FileStorageLocks;
import dev.vsm.engine.PluginDirectory;
import dev.vsm.engine.PluginRegistry;
import dev.vsm.engine.StdConsole;
import dev.vsm.engine.StorageManager;
import dev.vsm.env.Environment;
import dev.vsm.lock.FileLocks;
import dev.vsm.progress.ProgressOutput;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageLocks;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.transfer.VolumeTransfers;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What one command run works with, each part made on first use so that a command pays only
 * for what it needs: the plugin registry, the configuration, the lock directory, the context
 * handed to plugins and the storage facade.
 *
 * <p>Cluster mode: when the configuration file has a {@code cluster:} block, the storages come
 * from ZooKeeper and the locks of shared storages are cluster locks ({@link Cluster}, opened on
 * first use and closed by {@link #close()}). Without a block no cluster class is loaded.
 */
public final class Session implements AutoCloseable {
    private final Vsm vsm;
    private final boolean dryRun;
    private final boolean quiet;
    private final boolean stdoutIsData;
    private final boolean changing;
    private final Environment environment = Environment.system();
    private PluginRegistry registry;
    private FileLocks locks;
    private ConfigStore configStore;
    private StorageConfigs config;
    private DefaultStorageContext context;
    private StorageManager manager;
    private ConfigLocation location;
    private Optional<ClusterSettings> clusterSettings;
    private Cluster cluster;
    /** Closes the connection when the JVM exits on a signal (SIGTERM, Ctrl-C), so this process's znodes go at once. */
    private Thread closeOnExit;

    public Session(Vsm vsm, boolean dryRun) {
        this(vsm, dryRun, false, false, false);
    }

    public Session(Vsm vsm, boolean dryRun, boolean quiet, boolean stdoutIsData) {
        this(vsm, dryRun, quiet, stdoutIsData, false);
    }

    /**
     * @param quiet        no progress display ({@code --quiet})
     * @param stdoutIsData standard output carries data ({@code vsm export ... -}): every message,
     *                     progress included, goes to standard error
     * @param changing     the command changes something: in cluster mode it then needs quorum
     *                     (read-only commands fall back to the cached configuration)
     */
    public Session(Vsm vsm, boolean dryRun, boolean quiet, boolean stdoutIsData, boolean changing) {
        this.vsm = requireNonNull(vsm, "vsm");
        this.dryRun = dryRun;
        this.quiet = quiet;
        this.stdoutIsData = stdoutIsData;
        this.changing = changing;
    }

    /** The environment vsm runs in: this process's. */
    public Environment environment() {
        return environment;
    }

    public boolean dryRun() {
        return dryRun;
    }

    /** The built-in plugins, and the drop-in ones of the plugin directory when first needed; each refusal warned about once. */
    public PluginRegistry registry() {
        if (registry == null) {
            registry = PluginRegistry.withDropIns(Session.class.getClassLoader(), () -> pluginDirectory().scan(this::warn), this::warn);
        }
        return registry;
    }

    /** {@code --plugin-dir}, {@code $VSM_PLUGIN_DIR}, the configuration's {@code plugin-dir}, or the default. */
    public PluginDirectory pluginDirectory() {
        return PluginDirectory.resolve(vsm.pluginDirOption(), environment.asMap(), () -> configStore().pluginDir());
    }

    private void warn(String message) {
        vsm.err().println("warning: " + message);
    }

    /** The schema of a type, for the configuration's checks. */
    public Optional<PluginSchema> schema(String type) {
        return registry().plugin(type).map(StoragePlugin::schema);
    }

    public FileLocks locks() {
        if (locks == null) {
            locks = new FileLocks(dev.vsm.lock.LockDirectory.resolve(environment), vsm.err(), FileLocks.configuredTimeout(environment));
        }
        return locks;
    }

    public ConfigStore configStore() {
        if (configStore == null) {
            configStore = clusterSettings().isEmpty() ? new ConfigStore(location(), this::schema, locks())
                    : ConfigStore.clustered(location(), cluster().configSource(), this::schema);
        }
        return configStore;
    }

    public ConfigLocation location() {
        if (location == null) {
            location = ConfigLocation.resolve(vsm.configOption(), environment);
        }
        return location;
    }

    /** The configuration file's cluster block, empty when vsm is not in cluster mode. */
    public Optional<ClusterSettings> clusterSettings() {
        if (clusterSettings == null) {
            clusterSettings = new ConfigStore(location(), this::schema, locks()).cluster();
        }
        return clusterSettings;
    }

    /**
     * Cluster mode's connection, opened on first use.
     *
     * @throws StorageException (bad input) {@code not in cluster mode: no 'cluster' block in <file>}
     */
    public Cluster cluster() {
        if (cluster == null) {
            ClusterSettings settings = clusterSettings().orElseThrow(() ->
                    StorageException.badInput("not in cluster mode: no 'cluster' block in %s", location().file()));
            cluster = ClusterLoader.open(settings, locks().directory().resolve("cluster-config.yaml"), locks().timeout(), changing, this::warn);
            closeOnExit = new Thread(cluster::close, "vsm-cluster-close");
            Runtime.getRuntime().addShutdownHook(closeOnExit);
        }
        return cluster;
    }

    /** Closes the cluster connection, if one was opened (its ephemeral znodes go at once). */
    @Override
    public void close() {
        if (cluster != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(closeOnExit);
            } catch (IllegalStateException e) {
                // the JVM is exiting: the hook closes it
            }
            cluster.close();
        }
    }

    /** The configuration as read at first use; warnings (sections of unloaded types) go to stderr once. */
    public StorageConfigs config() {
        if (config == null) {
            config = configStore().load();
            config.warnings().forEach(w -> vsm.err().println("warning: " + w));
        }
        return config;
    }

    public StorageContext context() {
        if (context == null) {
            PrintStream messages = stdoutIsData ? vsm.err() : vsm.out();
            StdConsole console = new StdConsole(messages, vsm.err());
            boolean terminal = stdoutIsData
                    ? vsm.err() == System.err && ProgressOutput.stderrIsTerminal()
                    : vsm.out() == System.out && ProgressOutput.stdoutIsTerminal();
            ProgressOutput progress = quiet ? ProgressOutput.none()
                    : terminal ? ProgressOutput.terminal(messages) : ProgressOutput.lines(console);
            String node = clusterSettings().map(ClusterSettings::node).orElse(null);
            context = DefaultStorageContext.builder(console).dryRun(dryRun).progress(progress).locks(storageLocks())
                    .environment(environment).nodeName(node).build();
        }
        return context;
    }

    /** Import, export and copy of volumes, on this session's storages. */
    public VolumeTransfers transfers() {
        context();
        return new VolumeTransfers(manager(), context.qemuImgRunner(), context.progress());
    }

    /**
     * Storage locks: a file lock per storage (in cluster mode a cluster lock for shared storages),
     * none under dry-run (nothing changes then).
     */
    private StorageLocks storageLocks() {
        if (dryRun) {
            return StorageLocks.NONE;
        }
        StorageLocks local = new FileStorageLocks(locks());
        if (clusterSettings().isEmpty()) {
            return local;
        }
        return cluster().storageLocks(local, id -> config().storage(id).map(StorageConfig::shared).orElse(false));
    }

    public StorageManager manager() {
        if (manager == null) {
            Map<String, String> unloaded = new LinkedHashMap<>();
            config().unloaded().forEach((id, section) -> unloaded.put(id, section.type()));
            manager = new StorageManager(registry(), config().storages(), unloaded, context());
        }
        return manager;
    }

    /** The plugins' config hooks, run by the configuration store just before it writes. */
    public ConfigHooks hooks() {
        return new ConfigHooks() {
            /**
             * pve's create: the plugin's add hook, then an activation when the storage is enabled
             * here, so a storage that cannot work is not kept; when it fails, the plugin's delete
             * hook undoes the add hook and nothing is written.
             */
            @Override
            public void onAdd(StorageConfig added) {
                Optional<StoragePlugin> plugin = plugin(added);
                if (plugin.isEmpty()) {
                    return;
                }
                plugin.get().onAdd(added, context());
                if (!StorageManager.enabledOn(added, context().nodeName())) {
                    return;
                }
                try {
                    plugin.get().open(added, context()).activate();
                } catch (RuntimeException e) {
                    try {
                        plugin.get().onDelete(added, context());
                    } catch (RuntimeException undo) {
                        e.addSuppressed(undo);
                    }
                    throw e;
                }
            }

            @Override
            public void onUpdate(StorageConfig before, StorageConfig after) {
                plugin(after).ifPresent(p -> p.onUpdate(before, after, context()));
            }

            @Override
            public void onDelete(StorageConfig removed) {
                plugin(removed).ifPresent(p -> p.onDelete(removed, context()));
            }
        };
    }

    private Optional<StoragePlugin> plugin(StorageConfig cfg) {
        return registry().plugin(cfg.type());
    }

}
