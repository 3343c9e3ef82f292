package dev.vsm.spi;

/** Capacity of a storage in bytes, and whether it is active. */
public record StorageStatus(long total, long used, long avail, boolean active) {
    public static final StorageStatus INACTIVE = new StorageStatus(0, 0, 0, false);
}
