package dev.vsm.plugin.lvm;

import dev.vsm.spi.Feature;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Which LVM volumes support which feature (pve's {@code LVMPlugin::volume_has_feature}). The key
 * is {@code snap} when a snapshot is asked about, else {@code base} for a base volume (none on
 * LVM), else {@code current}. No clone, template or sparseinit on plain LVM.
 */
final class LvmFeatures {
    private enum Key {
        CURRENT,
        BASE,
        SNAP
    }

    private static final Set<VolumeFormat> BOTH = EnumSet.of(VolumeFormat.QCOW2, VolumeFormat.RAW);
    private static final Set<VolumeFormat> QCOW2 = EnumSet.of(VolumeFormat.QCOW2);

    private static final Map<Feature, Map<Key, Set<VolumeFormat>>> TABLE = Map.of(
            Feature.COPY, Map.of(Key.BASE, BOTH, Key.CURRENT, BOTH, Key.SNAP, QCOW2),
            Feature.RENAME, Map.of(Key.CURRENT, BOTH),
            Feature.SNAPSHOT, Map.of(Key.CURRENT, QCOW2, Key.SNAP, QCOW2));

    private LvmFeatures() {}

    static boolean has(Feature feature, VolumeName volume, String snapshot) {
        Key key = snapshot != null && !snapshot.isEmpty() ? Key.SNAP : volume.isBase() ? Key.BASE : Key.CURRENT;
        Set<VolumeFormat> formats = TABLE.getOrDefault(feature, Map.of()).getOrDefault(key, Set.of());
        return volume.volumeFormat().filter(formats::contains).isPresent();
    }
}
