package dev.vsm.spi;

import java.util.function.Supplier;

/**
 * Locks for a plugin's work outside the engine's own locking. The engine holds a storage's lock
 * around {@code allocImage}, {@code freeImage} and the like; a task a plugin hands back to run
 * after the lock is released (a saferemove wipe) takes it again here for its last step, and can
 * claim a piece of slow work so that two vsm processes never do it twice.
 *
 * <p>Locks are per host (files under vsm's lock directory) and re-entrant within a thread. Under
 * {@code --dry-run} nothing is locked.
 */
public interface StorageLocks {
    /**
     * Runs {@code work} holding the storage's lock, the one the engine takes around changes,
     * waiting a bounded time for it.
     *
     * @throws StorageException (failed) when the lock cannot be had in time
     */
    <T> T withStorageLock(String storageId, Supplier<T> work);

    /**
     * Runs {@code work} holding the host-wide lock {@code name} if no one else holds it right now:
     * a claim on a piece of work that is not tied to one storage (LVM: one LV, which two storages
     * on the same volume group both see).
     *
     * @param name up to 100 letters, digits, {@code .}, {@code _} and {@code -}
     * @return false, without running {@code work}, when another process or thread holds the lock
     */
    boolean tryExclusive(String name, Runnable work);

    /**
     * Fails when a lock this thread holds may have passed to another holder meanwhile: in cluster
     * mode, a ZooKeeper session that expired while the process stalled (a long pause, a frozen
     * VM) frees its locks for other nodes. The engine calls this before every change a plugin
     * makes through its context (a changing command, a file moved or removed); a plugin that
     * changes something another way calls it first. Local file locks cannot be lost by a running
     * process: for them this does nothing.
     *
     * @throws StorageException (failed) saying which lock was lost; nothing more may be changed
     */
    default void checkHeld() {}

    /** No locking at all: for tests and tools that run alone. */
    StorageLocks NONE = new StorageLocks() {
        @Override
        public <T> T withStorageLock(String storageId, Supplier<T> work) {
            return work.get();
        }

        @Override
        public boolean tryExclusive(String name, Runnable work) {
            work.run();
            return true;
        }
    };
}
