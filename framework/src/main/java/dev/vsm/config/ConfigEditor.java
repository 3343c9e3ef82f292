package dev.vsm.config;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Applies {@link ConfigEdit}s to a configuration in memory, with pve's checks and messages
 * (API2/Storage/Config.pm create/update/delete). Pure: reading, locking, hooks and writing are
 * {@link ConfigStore}'s.
 */
final class ConfigEditor {
    /** pve's {@code base} property (LVM on iSCSI): a volume id on another storage. */
    static final String BASE = "base";

    /** The section before and after an edit (null before an add, null after a remove), and the new contents. */
    record Change(StorageConfig before, StorageConfig after, ConfigContents contents) {
        Change {
            requireNonNull(contents, "contents");
        }
    }

    private final Function<String, Optional<PluginSchema>> schemas;

    ConfigEditor(Function<String, Optional<PluginSchema>> schemas) {
        this.schemas = requireNonNull(schemas, "schemas");
    }

    /**
     * The checks of an add that need no configuration (pve makes them before taking the lock):
     * storage id syntax, a loaded type, every value and every required property.
     *
     * @return the new storage's section
     */
    StorageConfig checkNew(ConfigEdit.Add add) {
        VolumeId.checkStorageId(add.id());
        PluginSchema schema = schemas.apply(add.type())
                .orElseThrow(() -> StorageException.badInput(
                        "unknown storage type '%s' (no loaded plugin provides it; see 'vsm plugins')",
                        VolumeId.printable(add.type())));
        List<ConfigProblem> problems = new ArrayList<>();
        Optional<StorageConfig> config =
                SectionValidator.validate(null, 0, null, add.id(), add.type(), schema, raw(add.values()), problems);
        if (problems.isEmpty()) {
            return config.orElseThrow();
        }
        throw new ConfigException(problems);
    }

    /** Adds the section {@link #checkNew} made. */
    Change add(ConfigContents contents, StorageConfig added) {
        if (contents.contains(added.id())) {
            throw StorageException.badInput("storage ID '%s' already defined", added.id());
        }
        return new Change(null, added, contents.with(added));
    }

    Change update(StorageConfigs current, ConfigEdit.Update update) {
        if (update.digest() != null && !update.digest().equalsIgnoreCase(current.digest())) {
            throw StorageException.badInput("detected modified configuration - file changed by other user? Try again.");
        }
        StorageConfig before = current.require(update.id());
        PluginSchema schema = schemas.apply(before.type())
                .orElseThrow(() -> new IllegalStateException("no schema for loaded type " + before.type()));
        List<ConfigProblem> problems = new ArrayList<>();
        Map<String, Object> values = new LinkedHashMap<>(before.properties());
        for (Map.Entry<String, ?> e : update.set().entrySet()) {
            String key = e.getKey();
            Optional<PropertySpec> spec = schema.property(key);
            if (key.equals(SectionValidator.TYPE)
                    || spec.map(PropertySpec::fixed).orElse(false)) {
                problems.add(problem("can't change value of fixed parameter '" + VolumeId.printable(key) + "'"));
            } else if (spec.isEmpty()) {
                problems.add(problem("unexpected property '" + VolumeId.printable(key) + "'"));
            } else {
                try {
                    values.put(key, PropertyValues.convert(spec.get(), RawValue.of(e.getValue()), schema));
                } catch (PropertyValues.BadValue bad) {
                    problems.add(new ConfigProblem(null, 0, null, key, bad.getMessage()));
                }
            }
        }
        for (String key : deletions(update)) {
            Optional<PropertySpec> spec = schema.property(key);
            if (spec.isEmpty() || key.equals(SectionValidator.TYPE)) {
                problems.add(problem("no such option '" + VolumeId.printable(key) + "'"));
            } else if (spec.get().required()) {
                problems.add(problem("unable to delete required option '" + key + "'"));
            } else if (spec.get().fixed()) {
                problems.add(problem("unable to delete fixed option '" + key + "'"));
            } else if (update.set().containsKey(key)) {
                problems.add(problem("cannot set and delete property '" + key + "' at the same time!"));
            } else {
                values.remove(key);
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        StorageConfig after = SectionValidator.validate(
                        null,
                        0,
                        null,
                        before.id(),
                        before.type(),
                        schema,
                        SectionValidator.raw(new StorageConfig(before.id(), before.type(), values)),
                        problems)
                .orElse(null);
        if (after == null) {
            throw new ConfigException(problems);
        }
        return new Change(before, after, current.contents().with(after));
    }

    Change remove(StorageConfigs current, ConfigEdit.Remove remove) {
        String id = remove.id();
        ConfigContents contents = current.contents();
        if (!contents.contains(id)) {
            throw StorageException.badInput("storage '%s' does not exist", VolumeId.printable(id));
        }
        for (StorageConfig other : contents.storages().values()) {
            if (!other.id().equals(id)
                    && other.string(BASE)
                            .filter(base -> base.startsWith(id + ":"))
                            .isPresent()) {
                throw StorageException.badInput("can't remove storage - storage is used as base of another storage");
            }
        }
        return new Change(contents.storages().get(id), null, contents.without(id));
    }

    /** The keys to delete: each entry split as pve's {@code split_list} does, duplicates dropped. */
    private static Set<String> deletions(ConfigEdit.Update update) {
        Set<String> keys = new LinkedHashSet<>();
        for (String entry : update.delete()) {
            keys.addAll(PropertyValues.splitList(entry));
        }
        return keys;
    }

    private static List<RawProperty> raw(Map<String, ?> values) {
        List<RawProperty> properties = new ArrayList<>();
        values.forEach((key, value) -> properties.add(new RawProperty(key, 0, RawValue.of(value))));
        return properties;
    }

    private static ConfigProblem problem(String message) {
        return new ConfigProblem(null, 0, null, null, message);
    }
}
