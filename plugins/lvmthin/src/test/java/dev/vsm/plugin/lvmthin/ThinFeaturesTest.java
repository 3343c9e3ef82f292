package dev.vsm.plugin.lvmthin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.spi.Feature;
import dev.vsm.spi.VolumeName;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** pve's LvmThinPlugin::volume_has_feature table (LvmThinPlugin.pm:408-431). */
class ThinFeaturesTest {
    private static final VolumeName CURRENT = ThinVolumeNames.parse("vm-100-disk-0");
    private static final VolumeName BASE = ThinVolumeNames.parse("base-100-disk-0");

    private static Set<Feature> features(VolumeName volume, String snapshot) {
        return Arrays.stream(Feature.values())
                .filter(f -> ThinFeatures.has(f, volume, snapshot))
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(Feature.class)));
    }

    @Test
    void currentVolumes() {
        assertThat(features(CURRENT, null))
                .containsExactlyInAnyOrder(
                        Feature.SNAPSHOT, Feature.TEMPLATE, Feature.COPY, Feature.SPARSEINIT, Feature.RENAME);
    }

    @Test
    void baseVolumes() {
        assertThat(features(BASE, null)).containsExactlyInAnyOrder(Feature.CLONE, Feature.COPY, Feature.SPARSEINIT);
        assertThat(features(BASE, "")).isEqualTo(features(BASE, null));
    }

    @Test
    void snapshots() {
        assertThat(features(CURRENT, "s1")).containsExactlyInAnyOrder(Feature.CLONE, Feature.COPY);
        assertThat(features(BASE, "s1")).containsExactlyInAnyOrder(Feature.CLONE, Feature.COPY);
    }
}
