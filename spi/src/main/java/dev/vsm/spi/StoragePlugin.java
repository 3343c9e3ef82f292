package dev.vsm.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A storage type, found with {@link java.util.ServiceLoader} (list the class in
 * {@code META-INF/services/dev.vsm.spi.StoragePlugin}). It describes the type and opens
 * {@link Storage}s from configuration sections. Implementations need a public no-argument
 * constructor and should do no work in it.
 */
public interface StoragePlugin {
    /**
     * The SPI version this plugin was built for; vsm loads it when {@link StorageApi#accepts(int)}.
     * Implement it as {@code return StorageApi.VERSION;}: javac copies the constant into the
     * plugin's class, so the jar keeps saying which version it was compiled against (pve's
     * {@code api()}). There is no default on purpose: a default method would answer with the
     * version of the running vsm, not the plugin's.
     */
    int apiVersion();

    /** The type name used in configuration ({@code dir}, {@code lvm}, ...): lower case, a valid identifier. */
    String type();

    /** The properties, content types and formats a section of this type may hold. */
    PluginSchema schema();

    /**
     * The image formats a storage of this type takes with this configuration (pve's
     * {@code get_formats}): what {@code vsm status --format} shows and what a command that picks a
     * format for the user (an import) chooses from. The schema's {@link PluginSchema#formats()}
     * are what the type may hold under any configuration. A {@code format} property in the
     * section wins over {@link #defaultFormat}.
     */
    default List<VolumeFormat> formats(StorageConfig config) {
        return schema().formats();
    }

    /** The format this storage allocates when none is asked for (pve's {@code get_formats} default). */
    default VolumeFormat defaultFormat(StorageConfig config) {
        return schema().defaultFormat();
    }

    /** Opens one configured storage. Cheap: no I/O until an operation is called. */
    Storage open(StorageConfig config, StorageContext context);

    /** Called before a new storage section is written; may refuse it (throw) or prepare the storage. */
    default void onAdd(StorageConfig config, StorageContext context) {}

    /** Called before a changed storage section is written; may refuse the change. */
    default void onUpdate(StorageConfig before, StorageConfig after, StorageContext context) {}

    /** Called before a storage section is removed. Data is never touched by vsm when a storage is removed. */
    default void onDelete(StorageConfig config, StorageContext context) {}

    /**
     * {@code vsm scan <type> [args]}: what this host has that a new storage of this type could
     * use (pvesm scan: the volume groups for lvm, a volume group's thin pools for lvmthin),
     * sorted, one row each, whose first entry is its name. A type with nothing to scan refuses.
     */
    default List<Map<String, Object>> scan(List<String> args, StorageContext context) {
        throw StorageException.badInput("storage type '%s' has nothing to scan", type());
    }

    /**
     * The block devices a configured storage's data lives on, each with what it is to the
     * storage, said as a phrase ({@code physical volume /dev/sdb of volume group 'vg0'}):
     * {@code vsm wipe} refuses them. Empty when the data is not on devices of its own.
     */
    default Map<Path, String> devices(StorageConfig config, StorageContext context) {
        return Map.of();
    }
}
