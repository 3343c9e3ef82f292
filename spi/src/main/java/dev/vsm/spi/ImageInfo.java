package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

/**
 * What a volume's image says about itself (pve's {@code volume_size_info} and a bit more).
 *
 * @param virtualSize   the guest-visible size in bytes
 * @param format        the image format
 * @param actualSize    bytes allocated on the host
 * @param backingFile   the backing file as recorded in the image, or null
 * @param backingFormat the backing file's format, or null
 * @param clusterSize   qcow2 cluster size in bytes, or null for other formats
 * @param extendedL2    qcow2 subcluster allocation (extended L2 entries); false for other formats
 * @param ctime         change time in seconds since the epoch, or null
 */
public record ImageInfo(long virtualSize, String format, long actualSize, String backingFile, String backingFormat,
                        Integer clusterSize, boolean extendedL2, Long ctime) {
    public ImageInfo {
        requireNonNull(format, "format");
    }

    /**
     * The L2 cache, in bytes, that keeps all of this image's cluster mapping in memory:
     * {@code virtual_size * 8 / cluster_size}, {@code * 16} with extended L2 entries. Null for
     * formats without L2 tables.
     */
    public Long l2CacheBytes() {
        if (clusterSize == null || clusterSize <= 0) {
            return null;
        }
        long entry = extendedL2 ? 16 : 8;
        long clusters = (virtualSize + clusterSize - 1) / clusterSize;
        return clusters * entry;
    }
}
