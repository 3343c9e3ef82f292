package dev.vsm.runtime;

import static java.util.Objects.requireNonNull;

import dev.vsm.config.ClusterSettings;
import dev.vsm.config.ConfigEdit;
import dev.vsm.config.ConfigHooks;
import dev.vsm.config.ConfigLocation;
import dev.vsm.config.ConfigStore;
import dev.vsm.config.EditResult;
import dev.vsm.config.StorageConfigs;
import dev.vsm.engine.DefaultStorageContext;
import dev.vsm.engine.FileStorageLocks;
import dev.vsm.engine.PluginDirectory;
import dev.vsm.engine.PluginRegistry;
import dev.vsm.engine.StdConsole;
import dev.vsm.engine.StorageManager;
import dev.vsm.engine.cluster.Cluster;
import dev.vsm.engine.cluster.ClusterConnector;
import dev.vsm.env.Environment;
import dev.vsm.lock.FileLocks;
import dev.vsm.lock.LockDirectory;
import dev.vsm.progress.ProgressOutput;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageLocks;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.transfer.VolumeTransfers;
import dev.vsm.zeroout.DeviceWipe;
import dev.vsm.zeroout.Sysfs;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * vsm assembled: the plugin registry (built-in plugins and the drop-ins of the plugin
 * directory), the configuration, the lock directory, the context handed to plugins and the
 * storage facade ({@link #manager()}), made from one {@link #builder()}. The {@code vsm} command
 * is one user of it; a program that embeds vsm is another.
 *
 * <p>Each part is made on first use, so a caller pays only for what it needs (reading the
 * configuration, scanning the plugin directory, starting qemu-img's JSON reader). Not
 * thread-safe: one runtime per thread of work, as one {@code vsm} process runs one command.
 *
 * <p>Cluster mode: when the configuration file has a {@code cluster:} block, the storages come
 * from ZooKeeper and the locks of shared storages are cluster locks. The connection is opened
 * through the {@link ClusterConnector} given to the builder (the {@code cluster} module's
 * {@code ZooKeeperConnector}) on first use and closed by {@link #close()}; without a block no
 * cluster class is loaded.
 */
public final class VsmRuntime implements AutoCloseable {
    private final Path configFile;
    private final String configText;
    private final Path pluginDirOption;
    private final Path lockDirOption;
    private final Environment environment;
    private final PrintStream out;
    private final PrintStream err;
    private final boolean dryRun;
    private final boolean quiet;
    private final boolean stdoutIsData;
    private final boolean changing;
    private final ClusterConnector connector;
    private final ClassLoader classLoader;
    private PluginRegistry registry;
    private FileLocks locks;
    private ConfigStore localStore;
    private ConfigStore configStore;
    private StorageConfigs config;
    private DefaultStorageContext context;
    private StorageManager manager;
    private ConfigLocation location;
    private Optional<ClusterSettings> clusterSettings;
    private Cluster cluster;
    /** Closes the connection when the JVM exits on a signal (SIGTERM, Ctrl-C), so this process's znodes go at once. */
    private Thread closeOnExit;

    private VsmRuntime(Builder b) {
        this.configFile = b.configFile;
        this.configText = b.configText;
        this.pluginDirOption = b.pluginDirectory;
        this.lockDirOption = b.lockDirectory;
        this.environment = b.environment;
        this.out = b.out;
        this.err = b.err;
        this.dryRun = b.dryRun;
        this.quiet = b.quiet;
        this.stdoutIsData = b.stdoutIsData;
        this.changing = b.changing;
        this.connector = b.connector;
        this.classLoader = b.classLoader;
    }

    /**
     * A runtime on the defaults: the configuration file {@code $VSM_CONFIG} (else
     * {@code /etc/vsm/storage.yaml}), the plugin directory {@code $VSM_PLUGIN_DIR} (else the
     * configuration's {@code plugin-dir}, else {@code /usr/share/vsm/plugins}), the lock directory
     * {@code $VSM_LOCK_DIR} (else {@code /run/lock/vsm} for root, a private one for other users),
     * this process's environment, messages on {@code System.out}, warnings on {@code System.err},
     * no cluster mode.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** How a {@link VsmRuntime} is made; every setting is optional. */
    public static final class Builder {
        private Path configFile;
        private String configText;
        private Path pluginDirectory;
        private Path lockDirectory;
        private Environment environment = Environment.system();
        private PrintStream out = System.out;
        private PrintStream err = System.err;
        private boolean dryRun;
        private boolean quiet;
        private boolean stdoutIsData;
        private boolean changing;
        private ClusterConnector connector;
        private ClassLoader classLoader = VsmRuntime.class.getClassLoader();

        private Builder() {}

        /**
         * The configuration file (the {@code vsm --config} option): one that does not exist yet
         * has no storages until an edit creates it. Null: {@code $VSM_CONFIG}, else the default
         * file, else the built-in default.
         */
        public Builder configFile(Path file) {
            this.configFile = file;
            this.configText = null;
            return this;
        }

        /**
         * The configuration as YAML text (what the configuration file would hold), kept in
         * memory instead of a file: edits through {@link VsmRuntime#configStore()} change this
         * runtime's copy only. Null: {@link #configFile}'s.
         */
        public Builder configText(String yaml) {
            this.configText = yaml;
            if (yaml != null) {
                this.configFile = null;
            }
            return this;
        }

        /** The directory of drop-in plugins ({@code --plugin-dir}); null: the environment's, the configuration's or the default. */
        public Builder pluginDirectory(Path dir) {
            this.pluginDirectory = dir;
            return this;
        }

        /**
         * Where the lock files live; made (mode 0700) when missing, refused when another user may
         * change it. Null: {@code $VSM_LOCK_DIR} or the default.
         */
        public Builder lockDirectory(Path dir) {
            this.lockDirectory = dir;
            return this;
        }

        /** The environment vsm takes its settings from and runs its commands in. */
        public Builder environment(Environment environment) {
            this.environment = requireNonNull(environment, "environment");
            return this;
        }

        /** Where messages (what was allocated, dry-run lines, progress) and warnings go. */
        public Builder output(PrintStream out, PrintStream err) {
            this.out = requireNonNull(out, "out");
            this.err = requireNonNull(err, "err");
            return this;
        }

        /** Under dry-run nothing changes: changing commands and writes are printed instead, and nothing is locked. */
        public Builder dryRun(boolean dryRun) {
            this.dryRun = dryRun;
            return this;
        }

        /** No progress display. */
        public Builder quiet(boolean quiet) {
            this.quiet = quiet;
            return this;
        }

        /** The output stream carries data ({@code vsm export ... -}): every message, progress included, goes to the error stream. */
        public Builder stdoutIsData(boolean stdoutIsData) {
            this.stdoutIsData = stdoutIsData;
            return this;
        }

        /** The work changes something: in cluster mode it then needs quorum (reading falls back to the cached configuration). */
        public Builder changing(boolean changing) {
            this.changing = changing;
            return this;
        }

        /**
         * How cluster mode connects when the configuration file has a {@code cluster:} block
         * (the {@code cluster} module's {@code ZooKeeperConnector}). Without one, such a file
         * is refused.
         */
        public Builder cluster(ClusterConnector connector) {
            this.connector = connector;
            return this;
        }

        /** Where the built-in plugins are found ({@code META-INF/services}); by default vsm's own class loader. */
        public Builder classLoader(ClassLoader classLoader) {
            this.classLoader = requireNonNull(classLoader, "classLoader");
            return this;
        }

        /** The runtime; nothing is read or opened until a part of it is first asked for. */
        public VsmRuntime build() {
            return new VsmRuntime(this);
        }
    }

    /** The environment vsm takes its settings from. */
    public Environment environment() {
        return environment;
    }

    public boolean dryRun() {
        return dryRun;
    }

    /** The built-in plugins, and the drop-in ones of the plugin directory when first needed; each refusal warned about once. */
    public PluginRegistry registry() {
        if (registry == null) {
            registry = PluginRegistry.withDropIns(
                    classLoader, () -> pluginDirectory().scan(this::warn), this::warn);
        }
        return registry;
    }

    /** The option, {@code $VSM_PLUGIN_DIR}, the configuration's {@code plugin-dir}, or the default. */
    public PluginDirectory pluginDirectory() {
        return PluginDirectory.resolve(
                pluginDirOption, environment.asMap(), () -> configStore().pluginDir());
    }

    private void warn(String message) {
        err.println("warning: " + message);
    }

    /** The schema of a type, for the configuration's checks. */
    public Optional<PluginSchema> schema(String type) {
        return registry().plugin(type).map(StoragePlugin::schema);
    }

    /** The lock files, waited for {@code $VSM_LOCK_TIMEOUT} seconds (else 10). */
    public FileLocks locks() {
        if (locks == null) {
            Path dir = lockDirOption != null ? LockDirectory.ensure(lockDirOption) : LockDirectory.resolve(environment);
            locks = new FileLocks(dir, err, FileLocks.configuredTimeout(environment));
        }
        return locks;
    }

    /** The storages' configuration: the file's (or the text's), in cluster mode ZooKeeper's. */
    public ConfigStore configStore() {
        if (configStore == null) {
            configStore = clusterSettings().isEmpty()
                    ? localStore()
                    : ConfigStore.clustered(location(), cluster().configSource(), this::schema);
        }
        return configStore;
    }

    /**
     * Changes the configuration ({@code vsm add}, {@code set}, {@code remove}; pve's
     * {@code POST /storage}, {@code PUT} and {@code DELETE /storage/{storage}}): pve's checks, the
     * plugin's hook, the atomic write under the configuration's lock ({@link ConfigStore#apply});
     * a dry run writes nothing. The one home of these rules for the command line and the API.
     */
    public EditResult editConfig(ConfigEdit edit) {
        return configStore().apply(edit, hooks(), dryRun);
    }

    /** The configuration file, or the text kept in memory: in cluster mode it holds the cluster block. */
    private ConfigStore localStore() {
        if (localStore == null) {
            localStore = configText != null
                    ? ConfigStore.inMemory(location(), configText, this::schema)
                    : new ConfigStore(location(), this::schema, locks());
        }
        return localStore;
    }

    /** Where the configuration file is; for {@link Builder#configText} a file of that name in the working directory, never read. */
    public ConfigLocation location() {
        if (location == null) {
            location = ConfigLocation.resolve(configText != null ? Path.of("in-memory.yaml") : configFile, environment);
        }
        return location;
    }

    /** The configuration file's cluster block, empty when vsm is not in cluster mode. */
    public Optional<ClusterSettings> clusterSettings() {
        if (clusterSettings == null) {
            clusterSettings = localStore().cluster();
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
            ClusterSettings settings = clusterSettings()
                    .orElseThrow(() -> StorageException.badInput(
                            "not in cluster mode: no 'cluster' block in %s",
                            location().file()));
            if (connector == null) {
                throw StorageException.failed(
                        "%s has a 'cluster' block, but this program was built without cluster mode",
                        location().file());
            }
            cluster = connector.open(
                    settings,
                    locks().directory().resolve("cluster-config.yaml"),
                    locks().timeout(),
                    changing,
                    this::warn);
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

    /** The configuration as read at first use; warnings (sections of unloaded types) go to the error stream once. */
    public StorageConfigs config() {
        if (config == null) {
            config = configStore().load();
            config.warnings().forEach(this::warn);
        }
        return config;
    }

    /** The context handed to plugins: commands, files, qemu-img, zero-out, locks and messages. */
    public DefaultStorageContext context() {
        if (context == null) {
            PrintStream messages = stdoutIsData ? err : out;
            StdConsole console = new StdConsole(messages, err);
            boolean terminal = stdoutIsData
                    ? err == System.err && ProgressOutput.stderrIsTerminal()
                    : out == System.out && ProgressOutput.stdoutIsTerminal();
            ProgressOutput progress = quiet
                    ? ProgressOutput.none()
                    : terminal ? ProgressOutput.terminal(messages) : ProgressOutput.lines(console);
            String node = clusterSettings().map(ClusterSettings::node).orElse(null);
            context = DefaultStorageContext.builder(console)
                    .dryRun(dryRun)
                    .progress(progress)
                    .locks(storageLocks())
                    .environment(environment)
                    .nodeName(node)
                    .build();
        }
        return context;
    }

    /** Import, export and copy of volumes, on this runtime's storages. */
    public VolumeTransfers transfers() {
        return new VolumeTransfers(
                manager(), context().qemuImgRunner(), context().progress());
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
        return cluster()
                .storageLocks(
                        local,
                        id -> config().storage(id).map(StorageConfig::shared).orElse(false));
    }

    /** The storage facade: allocate, list, clone, free, ... on the configured storages. */
    public StorageManager manager() {
        if (manager == null) {
            Map<String, String> unloaded = new LinkedHashMap<>();
            config().unloaded().forEach((id, section) -> unloaded.put(id, section.type()));
            manager = new StorageManager(registry(), config().storages(), unloaded, context());
        }
        return manager;
    }

    /** Zeroing whole block devices, with its refusals ({@link DeviceWipe}); sysfs is {@code $VSM_SYSFS}'s, else {@code /sys}. */
    public DeviceWipe deviceWipe() {
        return new DeviceWipe(
                context(), manager().storages().values(), registry()::plugin, Sysfs.fromEnvironment(environment));
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
