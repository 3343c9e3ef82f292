package dev.vsm.plugin.lvmthin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeName;
import org.junit.jupiter.api.Test;

/** Thin volume names as pve's LvmThinPlugin::parse_volname reads them, and the snapshot LV names. */
class ThinVolumeNamesTest {
    @Test
    void vmAndBaseVolumesAreRawImages() {
        assertThat(ThinVolumeNames.parse("vm-100-disk-0"))
                .isEqualTo(VolumeName.builder("vm-100-disk-0", ContentType.IMAGES, "vm-100-disk-0", "raw")
                        .vmid(100)
                        .build());
        VolumeName base = ThinVolumeNames.parse("base-101-disk-2");
        assertThat(base.isBase()).isTrue();
        assertThat(base.vmid()).isEqualTo(101);
        assertThat(base.isLinkedClone()).isFalse();
        assertThat(ThinVolumeNames.parse("vm-100-cloudinit").format()).isEqualTo("raw");
    }

    @Test
    void otherNamesAreBadInputWithPvesMessages() {
        assertBad("vm-100 disk", "lvm name 'vm-100 disk' contains illegal characters");
        assertBad("snap_vm-100-disk-0_s1", "unable to parse lvm volume name 'snap_vm-100-disk-0_s1'");
        assertBad("del-vm-100-disk-0", "unable to parse lvm volume name 'del-vm-100-disk-0'");
        assertBad("data", "unable to parse lvm volume name 'data'");
        assertBad(
                "vm-99999999999-disk-0", "unable to parse lvm volume name 'vm-99999999999-disk-0' - VMID out of range");
        assertThat(ThinVolumeNames.isVolumeName("vm-99999999999-disk-0")).isFalse();
        assertThat(ThinVolumeNames.isVolumeName("base-1-x")).isTrue();
    }

    @Test
    void snapshotLvs() {
        assertThat(ThinVolumeNames.snapshotLv("vm-100-disk-0", "s1")).isEqualTo("snap_vm-100-disk-0_s1");
        assertThat(ThinVolumeNames.isSnapshotOf("snap_vm-100-disk-0_before-upgrade", "vm-100-disk-0"))
                .isTrue();
        assertThat(ThinVolumeNames.isSnapshotOf("snap_vm-100-disk-0_1st", "vm-100-disk-0"))
                .isFalse();
        assertThat(ThinVolumeNames.isSnapshotOf("snap_vm-100-disk-1_s1", "vm-100-disk-0"))
                .isFalse();
        assertThat(ThinVolumeNames.isSnapshotOf("snap_vm-100-disk-0", "vm-100-disk-0"))
                .isFalse();
        assertThat(ThinVolumeNames.baseName("vm-100-disk-0")).isEqualTo("base-100-disk-0");
    }

    private static void assertBad(String volname, String message) {
        assertThatThrownBy(() -> ThinVolumeNames.parse(volname))
                .isInstanceOf(StorageException.class)
                .hasMessage(message)
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
        assertThat(ThinVolumeNames.isVolumeName(volname)).as(volname).isFalse();
    }
}
