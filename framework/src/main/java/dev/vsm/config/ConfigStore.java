package dev.vsm.config;

import static java.util.Objects.requireNonNull;

import dev.vsm.config.StorageConfigs.Origin;
import dev.vsm.lock.FileLocks;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The storage configuration file: reading it, and changing it safely.
 *
 * <p>Reading needs no lock (the file is only ever replaced whole). Every edit runs as one
 * transaction under the {@value #LOCK} lock: re-read the file, check the edit against it, run
 * the plugin's hook, write the new file atomically ({@link AtomicFile}) — so concurrent edits
 * from threads or processes all land, none is lost. An edit that changes nothing writes nothing.
 * Before writing, the new text is read back through the same checks: vsm never writes a file
 * it would refuse to read.
 *
 * <p>Errors found under the lock carry pve's prefix ({@code create storage failed: },
 * {@code update storage failed: }, {@code delete storage failed: }); those found before (the
 * values of an add) do not, as in pve.
 *
 * <p>The bytes live in a {@link ConfigSource}: the file (the lock a file lock, the write
 * atomic), or in cluster mode a znode ({@link #clustered}: the lock a cluster lock, the write
 * refused when the znode's version is no longer the one read under it).
 *
 * <p>Schemas come from {@code schemas}, a lookup by type name (the plugin registry's), so this
 * package does not depend on how plugins are found.
 */
public final class ConfigStore {
    /** The name of the lock held while the configuration is edited. */
    public static final String LOCK = "storage-config";

    private final ConfigLocation location;
    private final ConfigSource source;
    private final Origin origin;
    private final Function<String, Optional<PluginSchema>> schemas;
    private final ConfigReader reader;
    private final ConfigEditor editor;

    public ConfigStore(ConfigLocation location, Function<String, Optional<PluginSchema>> schemas, FileLocks locks) {
        this(location, schemas, locks, locks.timeout());
    }

    /** With a shorter wait for the lock than pve's 10 s, for tests. */
    ConfigStore(
            ConfigLocation location,
            Function<String, Optional<PluginSchema>> schemas,
            FileLocks locks,
            Duration lockTimeout) {
        this(location, new FileConfigSource(location.file(), locks, lockTimeout), Origin.FILE, schemas);
    }

    private ConfigStore(
            ConfigLocation location,
            ConfigSource source,
            Origin origin,
            Function<String, Optional<PluginSchema>> schemas) {
        this.location = requireNonNull(location, "location");
        this.source = requireNonNull(source, "source");
        this.origin = origin;
        this.schemas = requireNonNull(schemas, "schemas");
        this.reader = new ConfigReader(schemas);
        this.editor = new ConfigEditor(schemas);
    }

    /**
     * Cluster mode: the storages are read from and written to {@code source} (ZooKeeper), which
     * always holds a configuration; the local file at {@code location} holds the cluster block
     * and the plugin directory only.
     */
    public static ConfigStore clustered(
            ConfigLocation location, ConfigSource source, Function<String, Optional<PluginSchema>> schemas) {
        return new ConfigStore(location, source, Origin.CLUSTER, schemas);
    }

    /**
     * A configuration kept in memory, from YAML text: read like a file, edits change this store's
     * copy only. {@code location} gives the base of a relative {@code plugin-dir} and the
     * built-in default's directory; its file is not read.
     */
    public static ConfigStore inMemory(
            ConfigLocation location, String yaml, Function<String, Optional<PluginSchema>> schemas) {
        return new ConfigStore(location, new MemoryConfigSource(yaml), Origin.FILE, schemas);
    }

    public ConfigLocation location() {
        return location;
    }

    /**
     * The configuration, for commands that read it.
     *
     * @throws ConfigException when the file is not valid (every problem, with file and line)
     * @throws StorageException (BAD_INPUT) {@code config file '<f>' does not exist} for a missing
     *                          file given with {@code --config} (see {@link ConfigLocation})
     */
    public StorageConfigs load() {
        StorageConfigs configs = read().configs();
        if (configs.origin() == Origin.NEW_FILE) {
            throw StorageException.badInput(
                    "config file '%s' does not exist (a command that adds a storage creates it)", location.file());
        }
        return configs;
    }

    /**
     * The configuration's top-level {@code plugin-dir} (a relative path is taken from the file's
     * directory), read without the plugins: the plugin directory must be known before the
     * storages can be checked.
     *
     * @throws ConfigException when the file is not YAML or the value is not a path
     */
    public Optional<Path> pluginDir() {
        if (source instanceof MemoryConfigSource) {
            return reader.pluginDir(
                    location.file(), source.label(), source.read().map(ConfigSource.Stored::bytes));
        }
        return reader.pluginDir(location);
    }

    /**
     * The local file's {@code cluster} block, read without the plugins (like {@link #pluginDir()}):
     * when there is one, vsm runs in cluster mode.
     *
     * @throws ConfigException when a value of the block is bad, or the file also has storages
     */
    public Optional<ClusterSettings> cluster() {
        if (source instanceof MemoryConfigSource) {
            return reader.cluster(location.file(), source.label(), source.read().map(ConfigSource.Stored::bytes));
        }
        return reader.cluster(location);
    }

    /**
     * The YAML text of {@code configs}' storages alone, as vsm writes them (the top-level
     * {@code cluster} and {@code plugin-dir} entries left out): what {@code vsm cluster init} stores.
     */
    public byte[] storagesYaml(StorageConfigs configs) {
        return ConfigWriter.render(configs.contents().storagesOnly(), schemas).getBytes(StandardCharsets.UTF_8);
    }

    /** {@code vsm add}: {@link #apply} without hooks, not a dry run. */
    public EditResult add(String type, String id, Map<String, ?> values) {
        return apply(new ConfigEdit.Add(type, id, values), ConfigHooks.NONE, false);
    }

    /** {@code vsm set}: {@link #apply} without hooks, not a dry run. */
    public EditResult update(String id, Map<String, ?> set, Collection<String> delete, String digest) {
        return apply(new ConfigEdit.Update(id, set, delete, digest), ConfigHooks.NONE, false);
    }

    /** {@code vsm remove}: {@link #apply} without hooks, not a dry run. */
    public EditResult remove(String id) {
        return apply(new ConfigEdit.Remove(id), ConfigHooks.NONE, false);
    }

    /**
     * Applies an edit: checks it, runs the hook, writes the file.
     *
     * @param hooks  the plugin's hooks, run after the checks and before the write
     * @param dryRun when true, nothing is written (and no lock taken); the result tells what would
     *               be written, its {@link EditResult#changes()} are the lines to print
     * @throws StorageException (BAD_INPUT) when the edit is refused, in pve's words; FAILED when
     *                          the lock or the write fails. The file is unchanged in both cases.
     */
    public EditResult apply(ConfigEdit edit, ConfigHooks hooks, boolean dryRun) {
        requireNonNull(edit, "edit");
        requireNonNull(hooks, "hooks");
        StorageConfig added = edit instanceof ConfigEdit.Add add ? editor.checkNew(add) : null;
        try {
            if (dryRun) {
                return transaction(edit, added, hooks, true);
            }
            return source.locked(() -> transaction(edit, added, hooks, false));
        } catch (ConfigException e) {
            throw e.prefixed(edit.errorPrefix());
        } catch (ConfigUnavailableException e) {
            throw e;
        } catch (StorageException e) {
            throw new StorageException(e.kind(), edit.errorPrefix() + e.getMessage(), e);
        }
    }

    /** Re-reads, checks, runs the hook and writes: the part of an edit that runs under the lock. */
    private EditResult transaction(ConfigEdit edit, StorageConfig added, ConfigHooks hooks, boolean dryRun) {
        Current read = read();
        StorageConfigs current = read.configs();
        ConfigEditor.Change change;
        if (edit instanceof ConfigEdit.Update update) {
            change = editor.update(current, update);
        } else if (edit instanceof ConfigEdit.Remove remove) {
            change = editor.remove(current, remove);
        } else {
            change = editor.add(current.contents(), added);
        }
        runHooks(change, hooks);
        if (change.contents().equals(current.contents())) {
            return new EditResult(current, current, List.of(), false);
        }
        byte[] bytes = ConfigWriter.render(change.contents(), schemas).getBytes(StandardCharsets.UTF_8);
        StorageConfigs after = readBack(bytes);
        List<String> changes = source.describeWrite(read.stored());
        if (!dryRun) {
            source.write(read.stored(), bytes);
        }
        return new EditResult(current, after, changes, !dryRun);
    }

    /** The configuration as stored now, and what it was read from (null for a file that does not exist). */
    private record Current(StorageConfigs configs, ConfigSource.Stored stored) {}

    private Current read() {
        Optional<ConfigSource.Stored> stored = source.read();
        if (stored.isEmpty()) {
            if (origin == Origin.CLUSTER) {
                throw new IllegalStateException("a cluster configuration source returned no configuration");
            }
            return new Current(reader.missing(location), null);
        }
        byte[] bytes = stored.get().bytes();
        return new Current(reader.parse(location.file(), origin, source.label(), bytes, bytes), stored.get());
    }

    private static void runHooks(ConfigEditor.Change change, ConfigHooks hooks) {
        if (change.before() != null && change.after() != null) {
            hooks.onUpdate(change.before(), change.after());
        } else if (change.after() != null) {
            hooks.onAdd(change.after());
        } else if (change.before() != null) {
            hooks.onDelete(change.before());
        }
        // else: a section of a type that is not loaded was removed; it has no plugin to ask
    }

    /** The new file as a later load will see it; refuses (FAILED, nothing written) what would not read back. */
    private StorageConfigs readBack(byte[] bytes) {
        try {
            return reader.parse(location.file(), origin, source.label(), bytes, bytes);
        } catch (ConfigException e) {
            throw new StorageException(
                    StorageException.Kind.FAILED,
                    "internal error: the new configuration would not read back (nothing written): " + e.getMessage(),
                    e);
        }
    }
}
