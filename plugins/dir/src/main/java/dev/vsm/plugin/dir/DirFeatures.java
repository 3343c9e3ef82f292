package dev.vsm.plugin.dir;

import dev.vsm.spi.Feature;
import dev.vsm.spi.VolumeName;
import java.util.Map;
import java.util.Set;

/**
 * Which volumes of a dir storage support which feature (pve's base {@code volume_has_feature}
 * table). The key is {@code snap} when a snapshot is asked about, else {@code base} for a base
 * (template) volume, else {@code current}.
 */
final class DirFeatures {
    private enum Key {
        CURRENT,
        BASE,
        SNAP
    }

    private static final Set<String> FILE_FORMATS = Set.of("qcow2", "raw", "vmdk");

    private static final Map<Feature, Map<Key, Set<String>>> TABLE = Map.of(
            Feature.SNAPSHOT, Map.of(Key.CURRENT, Set.of("qcow2"), Key.SNAP, Set.of("qcow2")),
            Feature.CLONE, Map.of(Key.BASE, FILE_FORMATS),
            Feature.TEMPLATE, Map.of(Key.CURRENT, Set.of("qcow2", "raw", "vmdk", "subvol")),
            Feature.COPY, Map.of(Key.BASE, FILE_FORMATS, Key.CURRENT, FILE_FORMATS, Key.SNAP, Set.of("qcow2")),
            Feature.SPARSEINIT, Map.of(Key.BASE, FILE_FORMATS, Key.CURRENT, FILE_FORMATS),
            Feature.RENAME, Map.of(Key.CURRENT, FILE_FORMATS));

    private DirFeatures() {}

    static boolean has(Feature feature, VolumeName volume, String snapshot) {
        Key key = snapshot != null && !snapshot.isEmpty() ? Key.SNAP : volume.isBase() ? Key.BASE : Key.CURRENT;
        return TABLE.getOrDefault(feature, Map.of()).getOrDefault(key, Set.of()).contains(volume.format());
    }
}
