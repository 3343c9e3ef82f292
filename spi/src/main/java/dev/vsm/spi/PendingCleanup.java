package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * Work an earlier run left unfinished on a storage (an LVM saferemove wipe stopped by a crash or
 * Ctrl-C), found by {@link Storage#pendingCleanup()} under the storage lock.
 *
 * @param items what is pending, as the plugin names it (e.g. {@code del-vm-100-disk-0})
 * @param task  finishes it; the engine runs it after releasing the storage lock
 */
public record PendingCleanup(List<String> items, Runnable task) {
    public PendingCleanup {
        items = List.copyOf(items);
        requireNonNull(task, "task");
    }
}
