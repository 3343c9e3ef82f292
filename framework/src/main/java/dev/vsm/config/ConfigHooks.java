package dev.vsm.config;

import dev.vsm.spi.StorageConfig;

/**
 * What the engine runs when an edit is about to be written: the plugin's
 * {@code onAdd}/{@code onUpdate}/{@code onDelete}. Called under the configuration lock, after
 * every check passed and before the file is written (also under {@code --dry-run}, where the
 * engine's context makes the plugin print instead of act). A hook refuses the edit by throwing;
 * nothing is written then. Sections of types that are not loaded have no hooks.
 */
public interface ConfigHooks {
    /** No hooks. */
    ConfigHooks NONE = new ConfigHooks() {};

    default void onAdd(StorageConfig added) {}

    default void onUpdate(StorageConfig before, StorageConfig after) {}

    default void onDelete(StorageConfig removed) {}
}
