package dev.vsm.config;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Where the bytes of the storage configuration live, and how an edit is made safe: the local
 * file (under a file lock, replaced atomically) or, in cluster mode, a znode (under a cluster
 * lock, written only when its version is still the one read). {@link ConfigStore} parses,
 * checks and renders; a source only stores bytes.
 */
public interface ConfigSource {
    /** The bytes as stored and their version (0 where the store keeps none). */
    record Stored(byte[] bytes, long version) {
        public Stored {
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }
    }

    /** How the configuration is named in messages ({@code <file>:<line>: ...}). */
    String label();

    /**
     * The stored configuration, or empty when there is none yet (a file that does not exist).
     *
     * @throws dev.vsm.spi.StorageException when it cannot be read
     */
    Optional<Stored> read();

    /**
     * Replaces the configuration by {@code bytes}, provided it is still {@code expected} (as read
     * under {@link #locked}; null when there was none).
     *
     * @throws dev.vsm.spi.StorageException (failed, nothing written) when it changed meanwhile or the write failed
     */
    void write(Stored expected, byte[] bytes);

    /** Runs {@code work} holding the lock every edit of this configuration takes. */
    <T> T locked(Supplier<T> work);

    /** The {@code + ...} lines {@code --dry-run} prints for a write of the configuration. */
    List<String> describeWrite(Stored expected);
}
