package dev.vsm.plugin.lvmthin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.VolumeName;
import org.junit.jupiter.api.Test;

/** Thin volume names as pve's LvmThinPlugin::parse_volname reads them (the shared rules: LvVolumeNamesTest). */
class ThinVolumeNamesTest {
    @Test
    void vmAndBaseVolumesAreRawImages() {
        assertThat(ThinVolumeNames.parse("vm-100-disk-0"))
                .isEqualTo(VolumeName.builder("vm-100-disk-0", ContentType.IMAGES, "vm-100-disk-0", "raw")
                        .vmid(100)
                        .build());
        VolumeName base = ThinVolumeNames.parse("base-101-disk-2");
        assertThat(base.isBase()).isTrue();
        assertThat(base.format()).isEqualTo("raw");
        assertThat(ThinVolumeNames.parse("vm-100-cloudinit").format()).isEqualTo("raw");
        assertThat(ThinVolumeNames.parse("vm-100-disk-0.qcow2").format()).isEqualTo("raw");
        assertThat(ThinVolumeNames.isVolumeName("base-1-x")).isTrue();
    }

    @Test
    void aVmidOutOfRangeIsNoVolume() {
        assertThatThrownBy(() -> ThinVolumeNames.parse("vm-99999999999-disk-0"))
                .hasMessage("unable to parse lvm volume name 'vm-99999999999-disk-0' - VMID out of range");
        assertThat(ThinVolumeNames.isVolumeName("vm-99999999999-disk-0")).isFalse();
        assertThat(ThinVolumeNames.isVolumeName("snap_vm-100-disk-0_s1")).isFalse();
    }
}
