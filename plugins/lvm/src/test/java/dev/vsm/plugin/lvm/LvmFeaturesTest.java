package dev.vsm.plugin.lvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.spi.Feature;
import dev.vsm.spi.VolumeName;
import org.junit.jupiter.api.Test;

/** pve's LVMPlugin::volume_has_feature table. */
class LvmFeaturesTest {
    private static final VolumeName RAW = LvmVolumeNames.parse("vm-100-disk-0");
    private static final VolumeName QCOW2 = LvmVolumeNames.parse("vm-100-disk-1.qcow2");

    @Test
    void current() {
        assertThat(LvmFeatures.has(Feature.COPY, RAW, null)).isTrue();
        assertThat(LvmFeatures.has(Feature.RENAME, RAW, null)).isTrue();
        assertThat(LvmFeatures.has(Feature.SNAPSHOT, RAW, null)).isFalse();
        assertThat(LvmFeatures.has(Feature.SNAPSHOT, QCOW2, null)).isTrue();
        for (Feature none : new Feature[] {Feature.CLONE, Feature.TEMPLATE, Feature.SPARSEINIT}) {
            assertThat(LvmFeatures.has(none, RAW, null)).as(none.id()).isFalse();
            assertThat(LvmFeatures.has(none, QCOW2, null)).as(none.id()).isFalse();
        }
    }

    @Test
    void snapshots() {
        assertThat(LvmFeatures.has(Feature.COPY, QCOW2, "s1")).isTrue();
        assertThat(LvmFeatures.has(Feature.COPY, RAW, "s1")).isFalse();
        assertThat(LvmFeatures.has(Feature.SNAPSHOT, QCOW2, "s1")).isTrue();
        assertThat(LvmFeatures.has(Feature.RENAME, QCOW2, "s1")).isFalse();
    }
}
