package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.lock.FileLocks;
import dev.vsm.spi.StorageLocks;
import java.util.function.Supplier;

/**
 * {@link StorageLocks} on vsm's lock files: {@code storage-<id>} is the lock the engine takes
 * around changes (pve's {@code lock_file} per storage), {@code claim-<name>} a plugin's claim on
 * a piece of work.
 */
public final class FileStorageLocks implements StorageLocks {
    private final FileLocks locks;

    public FileStorageLocks(FileLocks locks) {
        this.locks = requireNonNull(locks, "locks");
    }

    /** The lock file name of a storage's lock. */
    public static String storageLockName(String storageId) {
        return "storage-" + storageId;
    }

    @Override
    public <T> T withStorageLock(String storageId, Supplier<T> work) {
        return locks.withLock(storageLockName(storageId), locks.timeout(), work);
    }

    @Override
    public boolean tryExclusive(String name, Runnable work) {
        if (name.length() > 100) {
            throw new IllegalArgumentException("claim name longer than 100 characters: " + name);
        }
        return locks.tryRunWithLock("claim-" + name, work);
    }
}
