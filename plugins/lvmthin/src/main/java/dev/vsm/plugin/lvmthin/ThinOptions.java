package dev.vsm.plugin.lvmthin;

import static java.util.Objects.requireNonNull;

import dev.vsm.lvm.LvmProperties;
import dev.vsm.spi.StorageConfig;

/**
 * The settings of one lvmthin storage section.
 *
 * @param vgname            the volume group
 * @param thinpool          the thin pool LV in it
 * @param maxOverprovision  the over-provisioning ratio cap, or null for none
 */
record ThinOptions(String vgname, String thinpool, Double maxOverprovision) {
    ThinOptions {
        requireNonNull(vgname, "vgname");
        requireNonNull(thinpool, "thinpool");
    }

    /**
     * Reads a section; bad input when a required value is missing. The ratio is positive: the
     * schema's pattern refuses any other value when the configuration is read or the option given.
     */
    static ThinOptions of(StorageConfig config) {
        String vg = LvmProperties.vgname(config);
        String pool = LvmProperties.required(config, LvmThinPlugin.THINPOOL);
        Double ratio = config.get(LvmThinPlugin.MAX_OVERPROVISION)
                .map(v -> ((Number) v).doubleValue())
                .orElse(null);
        return new ThinOptions(vg, pool, ratio);
    }
}
