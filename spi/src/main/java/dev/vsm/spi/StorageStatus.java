package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Objects;

/**
 * Capacity of a storage in bytes, and whether it is active.
 *
 * <p>Made with {@link #of} and the withers, so that it can gain fields without breaking plugins
 * built against an older SPI: {@code StorageStatus.of(total, used, avail, true).withWarnings(lines)}.
 */
public final class StorageStatus {
    public static final StorageStatus INACTIVE = of(0, 0, 0, false);

    private final long total;
    private final long used;
    private final long avail;
    private final boolean active;
    private final MetadataUsage metadata;
    private final List<String> warnings;

    private StorageStatus(
            long total, long used, long avail, boolean active, MetadataUsage metadata, List<String> warnings) {
        this.total = total;
        this.used = used;
        this.avail = avail;
        this.active = active;
        this.metadata = metadata;
        this.warnings = List.copyOf(warnings);
    }

    /** A status without metadata space and warnings. */
    public static StorageStatus of(long total, long used, long avail, boolean active) {
        return new StorageStatus(total, used, avail, active, null, List.of());
    }

    /** This status with the use of the storage's own metadata space (null: none). */
    public StorageStatus withMetadata(MetadataUsage usage) {
        return new StorageStatus(total, used, avail, active, usage, warnings);
    }

    /** This status with these warnings. */
    public StorageStatus withWarnings(List<String> lines) {
        return new StorageStatus(total, used, avail, active, metadata, requireNonNull(lines, "warnings"));
    }

    /** The storage's size. */
    public long total() {
        return total;
    }

    /** Bytes in use. */
    public long used() {
        return used;
    }

    /** Bytes still available. */
    public long avail() {
        return avail;
    }

    /** Whether the storage is usable now. */
    public boolean active() {
        return active;
    }

    /**
     * For storages whose metadata has its own, smaller space that can fill up on its own (an LVM
     * thin pool): its use; else null.
     */
    public MetadataUsage metadata() {
        return metadata;
    }

    /**
     * What the user should know about the storage's state (a pool nearly full, ...), one line
     * each; {@code vsm status} prints them on stderr and in JSON.
     */
    public List<String> warnings() {
        return warnings;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StorageStatus that
                && total == that.total
                && used == that.used
                && avail == that.avail
                && active == that.active
                && Objects.equals(metadata, that.metadata)
                && warnings.equals(that.warnings);
    }

    @Override
    public int hashCode() {
        return Objects.hash(total, used, avail, active, metadata, warnings);
    }

    @Override
    public String toString() {
        return "StorageStatus[total=" + total + ", used=" + used + ", avail=" + avail + ", active=" + active
                + ", metadata=" + metadata + ", warnings=" + warnings + "]";
    }

    /** How much of a storage's metadata space is in use. */
    public static final class MetadataUsage {
        private final long used;
        private final long size;

        private MetadataUsage(long used, long size) {
            this.used = used;
            this.size = size;
        }

        /** {@code used} bytes in use of a metadata space of {@code size} bytes. */
        public static MetadataUsage of(long used, long size) {
            return new MetadataUsage(used, size);
        }

        /** Bytes in use. */
        public long used() {
            return used;
        }

        /** The metadata space's size in bytes. */
        public long size() {
            return size;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof MetadataUsage that && used == that.used && size == that.size;
        }

        @Override
        public int hashCode() {
            return Objects.hash(used, size);
        }

        @Override
        public String toString() {
            return "MetadataUsage[used=" + used + ", size=" + size + "]";
        }
    }
}
