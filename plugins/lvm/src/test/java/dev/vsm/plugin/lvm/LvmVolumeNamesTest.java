package dev.vsm.plugin.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import org.junit.jupiter.api.Test;

/** pve's LVMPlugin::parse_volname and verify_volname_format (the shared rules: LvVolumeNamesTest). */
class LvmVolumeNamesTest {
    @Test
    void rawAndQcow2Names() {
        assertThat(LvmVolumeNames.parse("vm-100-disk-0"))
                .isEqualTo(VolumeName.builder("vm-100-disk-0", ContentType.IMAGES, "vm-100-disk-0", "raw")
                        .vmid(100)
                        .build());
        VolumeName q = LvmVolumeNames.parse("vm-101-disk-1.qcow2");
        assertThat(q.format()).isEqualTo("qcow2");
        assertThat(q.name()).isEqualTo("vm-101-disk-1.qcow2");
        assertThat(LvmVolumeNames.parse("vm-100-cloudinit").vmid()).isEqualTo(100);
        assertThat(LvmVolumeNames.parse("vm-100-disk-0.raw").format()).isEqualTo("raw");
    }

    /** No base volumes on LVM; a name whose VMID is out of range has a volume's form, which parse refuses. */
    @Test
    void namesThatAreNotVolumes() {
        assertThatThrownBy(() -> LvmVolumeNames.parse("base-100-disk-0"))
                .hasMessage("unable to parse lvm volume name 'base-100-disk-0'");
        assertThatThrownBy(() -> LvmVolumeNames.parse("vm-99999999999-disk-0"))
                .hasMessageContaining("VMID out of range");
        assertThat(LvmVolumeNames.isVolumeName("vm-1-a")).isTrue();
        assertThat(LvmVolumeNames.isVolumeName("vm-99999999999-disk-0")).isTrue();
        assertThat(LvmVolumeNames.isVolumeName("del-vm-1-a")).isFalse();
        assertThat(LvmVolumeNames.isVolumeName("snap_vm-100-disk-0_s1.qcow2")).isFalse();
    }

    @Test
    void nameAndFormatMustAgree() {
        LvmVolumeNames.checkFormat("vm-100-disk-0", VolumeFormat.RAW);
        LvmVolumeNames.checkFormat("vm-100-disk-0.qcow2", VolumeFormat.QCOW2);
        LvmVolumeNames.checkFormat("vm-100-disk-0", VolumeFormat.VMDK);
        assertThatThrownBy(() -> LvmVolumeNames.checkFormat("vm-100-disk-0.qcow2", VolumeFormat.RAW))
                .hasMessage(
                        "volume name 'vm-100-disk-0.qcow2' does not match requested format 'raw' (did you mean 'vm-100-disk-0'?)");
        assertThatThrownBy(() -> LvmVolumeNames.checkFormat("vm-100-disk-0", VolumeFormat.QCOW2))
                .hasMessage(
                        "volume name 'vm-100-disk-0' does not match requested format 'qcow2' (did you mean 'vm-100-disk-0.qcow2'?)");
        assertThatThrownBy(() -> LvmVolumeNames.checkFormat("vm-100-disk-0.raw", VolumeFormat.QCOW2))
                .hasMessage(
                        "volume name 'vm-100-disk-0.raw' does not match requested format 'qcow2' (did you mean 'vm-100-disk-0.qcow2'?)");
    }
}
