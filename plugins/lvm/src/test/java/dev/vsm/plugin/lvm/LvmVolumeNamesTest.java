package dev.vsm.plugin.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import org.junit.jupiter.api.Test;

/** pve's parse_lvm_name, LVMPlugin::parse_volname and verify_volname_format. */
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

    @Test
    void illegalCharacters() {
        for (String bad :
                new String[] {"vm-100-disk 0", "vm-100-disk-0-", "-vm", "vm/100", "vm-100-disk-0:x", "a", ""}) {
            assertThatThrownBy(() -> LvmVolumeNames.parse(bad))
                    .as(bad)
                    .isInstanceOf(StorageException.class)
                    .hasMessage("lvm name '" + bad + "' contains illegal characters");
        }
    }

    /** lvm2 takes 127 characters, and at most 124 for the group's and the LV's names together (measured, lvm2 2.03). */
    @Test
    void namesLvm2WouldRefuseForTheirLength() {
        String longest = "vm-100-" + "x".repeat(120);
        assertThat(LvmVolumeNames.parse(longest).name()).hasSize(127);
        assertThatThrownBy(() -> LvmVolumeNames.parse(longest + "x"))
                .hasMessage("lvm name '" + longest + "x' is too long (128 characters, lvm2 takes at most 127)");
        assertThat(LvmVolumeNames.isVolumeName(longest + "x")).isFalse();
        dev.vsm.lvm.LvmNames.checkInGroup("vg", "vm-100-" + "x".repeat(115));
        assertThatThrownBy(() -> dev.vsm.lvm.LvmNames.checkInGroup("vg", "vm-100-" + "x".repeat(116)))
                .hasMessageEndingWith(
                        "is too long for volume group 'vg' (2 + 123 characters, lvm2 takes at most 124 together)");
    }

    @Test
    void namesThatAreNotVolumes() {
        for (String bad :
                new String[] {"base-100-disk-0", "del-vm-100-disk-0", "vm-disk-0", "snap_vm-100-disk-0_s1.qcow2", "root"
                }) {
            assertThatThrownBy(() -> LvmVolumeNames.parse(bad))
                    .as(bad)
                    .hasMessage("unable to parse lvm volume name '" + bad + "'");
        }
        assertThatThrownBy(() -> LvmVolumeNames.parse("vm-99999999999-disk-0"))
                .hasMessageContaining("VMID out of range");
        assertThat(LvmVolumeNames.isVolumeName("vm-1-a")).isTrue();
        assertThat(LvmVolumeNames.isVolumeName("del-vm-1-a")).isFalse();
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
