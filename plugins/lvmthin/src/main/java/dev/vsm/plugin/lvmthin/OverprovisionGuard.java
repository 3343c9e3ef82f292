package dev.vsm.plugin.lvmthin;

import static java.util.Objects.requireNonNull;

import dev.vsm.lvm.LogicalVolume;
import dev.vsm.lvm.LvsReport;
import dev.vsm.spi.StorageException;
import java.math.BigDecimal;

/**
 * The over-provisioning guard (beyond pve; Cinder's {@code max_over_subscription_ratio},
 * TopoLVM's {@code overprovision-ratio}): with {@code max-overprovision} set, an allocation,
 * clone or resize that would make the virtual sizes of the pool's thin volumes add up to more
 * than ratio × pool size is refused before lvm2 runs. Every thin volume of the pool counts,
 * whoever made it, snapshots included, as in lvm2's own "sum of all thin volume sizes" warning.
 *
 * @param storageId the storage, for messages
 * @param vg        the volume group
 * @param pool      the thin pool LV
 * @param ratio     the cap, or null for none (then nothing is refused)
 */
record OverprovisionGuard(String storageId, String vg, String pool, Double ratio) {
    OverprovisionGuard {
        requireNonNull(storageId, "storageId");
        requireNonNull(vg, "vg");
        requireNonNull(pool, "pool");
    }

    /**
     * Refuses (failed) when adding {@code addedBytes} of virtual size would pass the cap.
     *
     * @param lvs        the group's LVs now
     * @param what       what is being made, for the message ({@code allocate vm-100-disk-0})
     * @param addedBytes the virtual size it adds
     */
    void check(LvsReport lvs, String what, long addedBytes) {
        if (ratio == null) {
            return;
        }
        LogicalVolume poolLv = lvs.find(vg, pool)
                .filter(LogicalVolume::isThinPool)
                .orElseThrow(
                        () -> StorageException.failed("no such thin pool %s/%s (storage '%s')", vg, pool, storageId));
        long sum = thinVolumeSizes(lvs);
        long after = sum + addedBytes;
        if (after > ratio * poolLv.size()) {
            String r = BigDecimal.valueOf(ratio).stripTrailingZeros().toPlainString();
            throw StorageException.failed(
                    "storage '%s': cannot %s (%d bytes): the thin volumes of pool %s/%s would add up "
                            + "to %d bytes (now %d), more than max-overprovision %s x the pool size %d bytes",
                    storageId, what, addedBytes, vg, pool, after, sum, r, poolLv.size());
        }
    }

    /** The sum of the virtual sizes of the pool's thin volumes. */
    long thinVolumeSizes(LvsReport lvs) {
        return lvs.inGroup(vg).stream()
                .filter(lv -> lv.type() == 'V' && lv.poolLv().equals(pool))
                .mapToLong(LogicalVolume::size)
                .sum();
    }
}
