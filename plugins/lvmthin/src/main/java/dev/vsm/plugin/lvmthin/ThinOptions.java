package dev.vsm.plugin.lvmthin;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;

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
        if (maxOverprovision != null && !(maxOverprovision > 0 && Double.isFinite(maxOverprovision))) {
            throw new IllegalArgumentException("max-overprovision must be positive: " + maxOverprovision);
        }
    }

    /** Reads a section; bad input when a required value is missing or the ratio is not a positive number. */
    static ThinOptions of(StorageConfig config) {
        String vg = required(config, LvmThinPlugin.VGNAME);
        String pool = required(config, LvmThinPlugin.THINPOOL);
        Double ratio = null;
        Object value = config.get(LvmThinPlugin.MAX_OVERPROVISION).orElse(null);
        if (value != null) {
            ratio = value instanceof Number n ? n.doubleValue() : Double.NaN;
            if (!(ratio > 0 && Double.isFinite(ratio))) {
                throw StorageException.badInput("storage '%s': %s must be a positive ratio such as 1.5 or 4 (got '%s')",
                        config.id(), LvmThinPlugin.MAX_OVERPROVISION, value);
            }
        }
        return new ThinOptions(vg, pool, ratio);
    }

    private static String required(StorageConfig config, String key) {
        return config.string(key).orElseThrow(
                () -> StorageException.badInput("storage '%s': missing value for required option '%s'", config.id(), key));
    }
}
