package dev.vsm.engine;

import java.util.function.Supplier;

/** Runs work under a storage's lock (pve's {@code cluster_lock_storage}). */
@FunctionalInterface
public interface StorageLocker {
    <T> T withStorageLock(String storageId, Supplier<T> work);

    /** No locking: for read-only use and for tests that run alone. */
    StorageLocker NONE = new StorageLocker() {
        @Override
        public <T> T withStorageLock(String storageId, Supplier<T> work) {
            return work.get();
        }
    };
}
