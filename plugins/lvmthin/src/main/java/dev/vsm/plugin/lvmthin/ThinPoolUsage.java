package dev.vsm.plugin.lvmthin;

import static java.util.Objects.requireNonNull;

import dev.vsm.lvm.LogicalVolume;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageStatus;
import dev.vsm.spi.StorageStatus.MetadataUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How full a thin pool is, as {@code lvs} reports it, and the warnings that go with it. A thin
 * pool that fills up fails every volume on it at once, and its metadata can fill up on its own;
 * so either above {@value #WARN_PERCENT}% is worth a warning.
 *
 * @param storageId the storage, for messages
 * @param pool      the pool LV
 */
record ThinPoolUsage(String storageId, LogicalVolume pool) {
    /** Above this percentage of data or metadata in use, status warns. */
    static final double WARN_PERCENT = 80;

    ThinPoolUsage {
        requireNonNull(storageId, "storageId");
        requireNonNull(pool, "pool");
    }

    /**
     * The pool as an active storage's status (pve's thin {@code status}): total = pool size,
     * used = data percent of it; metadata use and warnings beside.
     */
    StorageStatus status() {
        long used = pool.used();
        return StorageStatus.of(pool.size(), used, pool.size() - used, true)
                .withMetadata(MetadataUsage.of(pool.metadataUsed(), pool.metadataSize()))
                .withWarnings(warnings());
    }

    /**
     * One line for data and one for metadata when above {@value #WARN_PERCENT}%, and one when the
     * pool does not zero new blocks: vsm erases a thin volume by discarding it, which leaves its old
     * data in the pool's free blocks, for a volume that gets them next to read unless the pool
     * zeroes them (lvm2's {@code zero} flag, the eighth attribute character {@code z}).
     */
    List<String> warnings() {
        List<String> warnings = new ArrayList<>();
        if (pool.attr().length() > 7 && pool.attr().charAt(7) != 'z') {
            warnings.add(String.format(
                    Locale.ROOT,
                    "storage '%s': thin pool %s/%s does not zero new blocks (lvs -o zero) - "
                            + "a new volume may read what a freed or wiped one held; turn it on with lvchange -Zy %s/%s",
                    storageId,
                    pool.vg(),
                    pool.name(),
                    pool.vg(),
                    pool.name()));
        }
        if (pool.dataPercent() > WARN_PERCENT) {
            warnings.add(warning("data", pool.dataPercent()));
        }
        if (pool.metadataPercent() > WARN_PERCENT) {
            warnings.add(warning("metadata", pool.metadataPercent()));
        }
        return warnings;
    }

    /**
     * Refuses (failed) to make a thin volume in a pool whose data or metadata is full, saying what
     * to do; lvm2's own refusal names only a threshold.
     *
     * @param what what is being made, for the message ({@code allocate vm-100-disk-0})
     */
    void refuseWhenFull(String what) {
        if (pool.dataPercent() >= 100 || pool.metadataPercent() >= 100) {
            throw StorageException.failed(
                    "%s",
                    String.format(
                            Locale.ROOT,
                            "storage '%s': cannot %s: thin pool %s/%s is full (data "
                                    + "%.2f%%, metadata %.2f%%) - extend the pool (lvextend -L +<size> %s/%s, or --poolmetadatasize for "
                                    + "metadata) or free volumes",
                            storageId,
                            what,
                            pool.vg(),
                            pool.name(),
                            pool.dataPercent(),
                            pool.metadataPercent(),
                            pool.vg(),
                            pool.name()));
        }
    }

    private String warning(String what, double percent) {
        return String.format(
                Locale.ROOT,
                "storage '%s': thin pool %s/%s %s is %.2f%% full (warning above %.0f%%) - "
                        + "extend the pool or free volumes before it fills up",
                storageId,
                pool.vg(),
                pool.name(),
                what,
                percent,
                WARN_PERCENT);
    }
}
