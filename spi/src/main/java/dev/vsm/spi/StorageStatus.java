package dev.vsm.spi;

import java.util.List;

/**
 * Capacity of a storage in bytes, and whether it is active.
 *
 * @param total    the storage's size
 * @param used     bytes in use
 * @param avail    bytes still available
 * @param active   whether the storage is usable now
 * @param metadata for storages whose metadata has its own, smaller space that can fill up on its
 *                 own (an LVM thin pool): its use; else null
 * @param warnings what the user should know about the storage's state (a pool nearly full, ...),
 *                 one line each; {@code vsm status} prints them on stderr and in JSON
 */
public record StorageStatus(long total, long used, long avail, boolean active, MetadataUsage metadata, List<String> warnings) {
    public static final StorageStatus INACTIVE = new StorageStatus(0, 0, 0, false);

    public StorageStatus {
        warnings = List.copyOf(warnings);
    }

    /** A status without metadata space and warnings. */
    public StorageStatus(long total, long used, long avail, boolean active) {
        this(total, used, avail, active, null, List.of());
    }

    /**
     * How much of a storage's metadata space is in use.
     *
     * @param used bytes in use
     * @param size the metadata space's size in bytes
     */
    public record MetadataUsage(long used, long size) {}
}
