package dev.vsm.plugin.lvmthin;

import dev.vsm.spi.Feature;
import dev.vsm.spi.VolumeName;
import java.util.Map;
import java.util.Set;

/**
 * Which thin volumes support which feature (pve's {@code LvmThinPlugin::volume_has_feature}), the
 * same for every format. The key is {@code snap} when a snapshot is asked about, else {@code base}
 * for a base volume, else {@code current}.
 */
final class ThinFeatures {
    private enum Key {
        CURRENT,
        BASE,
        SNAP
    }

    private static final Map<Feature, Set<Key>> TABLE = Map.of(
            Feature.SNAPSHOT, Set.of(Key.CURRENT),
            Feature.CLONE, Set.of(Key.BASE, Key.SNAP),
            Feature.TEMPLATE, Set.of(Key.CURRENT),
            Feature.COPY, Set.of(Key.BASE, Key.CURRENT, Key.SNAP),
            Feature.SPARSEINIT, Set.of(Key.BASE, Key.CURRENT),
            Feature.RENAME, Set.of(Key.CURRENT));

    private ThinFeatures() {}

    static boolean has(Feature feature, VolumeName volume, String snapshot) {
        Key key = snapshot != null && !snapshot.isEmpty() ? Key.SNAP : volume.isBase() ? Key.BASE : Key.CURRENT;
        return TABLE.getOrDefault(feature, Set.of()).contains(key);
    }
}
