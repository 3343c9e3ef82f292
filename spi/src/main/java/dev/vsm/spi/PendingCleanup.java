package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * Work an earlier run left unfinished on a storage (an LVM saferemove wipe stopped by a crash or
 * Ctrl-C), found by {@link Storage#pendingCleanup()} under the storage lock.
 *
 * <p>Made with {@link #of}, so that it can gain fields without breaking plugins built against an
 * older SPI.
 */
public final class PendingCleanup {
    private final List<String> items;
    private final Runnable task;

    private PendingCleanup(List<String> items, Runnable task) {
        this.items = List.copyOf(items);
        this.task = requireNonNull(task, "task");
    }

    /**
     * @param items what is pending, as the plugin names it (e.g. {@code del-vm-100-disk-0})
     * @param task  finishes it; the engine runs it after releasing the storage lock
     */
    public static PendingCleanup of(List<String> items, Runnable task) {
        return new PendingCleanup(items, task);
    }

    /** What is pending, as the plugin names it (e.g. {@code del-vm-100-disk-0}). */
    public List<String> items() {
        return items;
    }

    /** Finishes it; the engine runs it after releasing the storage lock. */
    public Runnable task() {
        return task;
    }

    @Override
    public String toString() {
        return "PendingCleanup[items=" + items + "]";
    }
}
