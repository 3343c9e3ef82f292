package dev.vsm.engine;

import dev.vsm.spi.Feature;
import dev.vsm.spi.Operation;
import dev.vsm.spi.Storage;
import dev.vsm.spi.VolumeName;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a storage can do, as the engine reads it: the storage's {@link Storage#operations()}
 * decide which optional methods are called at all, and {@link Storage#hasFeature} is asked only
 * for the features those operations allow.
 */
public final class Capabilities {
    private Capabilities() {}

    /** Refuses (bad input, naming the storage and its plugin) unless the storage lists {@code operation}. */
    public static void require(Storage storage, Operation operation) {
        if (!storage.operations().contains(operation)) {
            throw operation.unsupportedBy(storage.config());
        }
    }

    /**
     * Whether the volume (or its snapshot, when {@code snapshot} is not null) has {@code feature}:
     * the storage lists the feature's operation, if it needs one, and says so for this volume.
     */
    public static boolean has(Storage storage, Feature feature, VolumeName volume, String snapshot) {
        Operation needed = feature.operation();
        return (needed == null || storage.operations().contains(needed))
                && storage.hasFeature(feature, volume, snapshot);
    }

    /** The features a volume has ({@code vsm info}). */
    public static Set<Feature> features(Storage storage, VolumeName volume) {
        Set<Feature> set = EnumSet.noneOf(Feature.class);
        for (Feature f : Feature.values()) {
            if (has(storage, f, volume, null)) {
                set.add(f);
            }
        }
        return set;
    }
}
