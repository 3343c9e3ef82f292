package dev.vsm.files;

import dev.vsm.spi.Feature;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Which volumes of a file storage support which feature (pve's base {@code volume_has_feature}
 * table). The key is {@code snap} when a snapshot is asked about, else {@code base} for a base
 * (template) volume, else {@code current}.
 */
public final class FileFeatures {
    private enum Key {
        CURRENT,
        BASE,
        SNAP
    }

    private static final Set<VolumeFormat> FILE_FORMATS =
            EnumSet.of(VolumeFormat.QCOW2, VolumeFormat.RAW, VolumeFormat.VMDK);
    private static final Set<VolumeFormat> QCOW2 = EnumSet.of(VolumeFormat.QCOW2);

    private static final Map<Feature, Map<Key, Set<VolumeFormat>>> TABLE = Map.of(
            Feature.SNAPSHOT, Map.of(Key.CURRENT, QCOW2, Key.SNAP, QCOW2),
            Feature.CLONE, Map.of(Key.BASE, FILE_FORMATS),
            Feature.TEMPLATE, Map.of(Key.CURRENT, EnumSet.allOf(VolumeFormat.class)),
            Feature.COPY, Map.of(Key.BASE, FILE_FORMATS, Key.CURRENT, FILE_FORMATS, Key.SNAP, QCOW2),
            Feature.SPARSEINIT, Map.of(Key.BASE, FILE_FORMATS, Key.CURRENT, FILE_FORMATS),
            Feature.RENAME, Map.of(Key.CURRENT, FILE_FORMATS));

    private FileFeatures() {}

    public static boolean has(Feature feature, VolumeName volume, String snapshot) {
        Key key = snapshot != null && !snapshot.isEmpty() ? Key.SNAP : volume.isBase() ? Key.BASE : Key.CURRENT;
        Set<VolumeFormat> formats = TABLE.getOrDefault(feature, Map.of()).getOrDefault(key, Set.of());
        return volume.volumeFormat().filter(formats::contains).isPresent();
    }
}
