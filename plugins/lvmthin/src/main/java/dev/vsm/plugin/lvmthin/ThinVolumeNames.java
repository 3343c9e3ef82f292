package dev.vsm.plugin.lvmthin;

import dev.vsm.lvm.LvVolumeNames;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;

/**
 * lvmthin's volume names: {@code vm-<vmid>-<anything>} and base volumes
 * {@code base-<vmid>-<anything>} as {@link LvVolumeNames#WITH_BASES} reads them; always raw. A
 * linked clone's name does not say which base it came from.
 */
final class ThinVolumeNames {
    private ThinVolumeNames() {}

    /** Parses a volume name; bad input with pve's messages when it is not one. */
    static VolumeName parse(String volname) {
        return LvVolumeNames.WITH_BASES.parse(volname, VolumeFormat.RAW);
    }

    /** Whether an LV name is a volume name of this plugin (what {@link #parse} accepts). */
    static boolean isVolumeName(String name) {
        return LvVolumeNames.WITH_BASES.isVolumeName(name);
    }
}
