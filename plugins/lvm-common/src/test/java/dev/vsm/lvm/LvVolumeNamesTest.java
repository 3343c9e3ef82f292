package dev.vsm.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import org.junit.jupiter.api.Test;

/** pve's parse_lvm_name and the parse_volname of LVMPlugin and LvmThinPlugin, and the snapshot LV names. */
class LvVolumeNamesTest {
    @Test
    void vmVolumesOfEitherKindAndBaseVolumesWhereTheTypeHasThem() {
        VolumeName vm = VolumeName.builder("vm-100-disk-0", ContentType.IMAGES, "vm-100-disk-0", "raw")
                .vmid(100)
                .build();
        assertThat(LvVolumeNames.VM_ONLY.parse("vm-100-disk-0", VolumeFormat.RAW))
                .isEqualTo(vm);
        assertThat(LvVolumeNames.WITH_BASES.parse("vm-100-disk-0", VolumeFormat.RAW))
                .isEqualTo(vm);
        assertThat(LvVolumeNames.VM_ONLY
                        .parse("vm-101-disk-1.qcow2", VolumeFormat.QCOW2)
                        .format())
                .isEqualTo("qcow2");
        assertThat(LvVolumeNames.VM_ONLY
                        .parse("vm-100-cloudinit", VolumeFormat.RAW)
                        .vmid())
                .isEqualTo(100);
        VolumeName base = LvVolumeNames.WITH_BASES.parse("base-101-disk-2", VolumeFormat.RAW);
        assertThat(base.isBase()).isTrue();
        assertThat(base.vmid()).isEqualTo(101);
        assertThat(base.isLinkedClone()).isFalse();
        assertBad(LvVolumeNames.VM_ONLY, "base-100-disk-0", "unable to parse lvm volume name 'base-100-disk-0'");
        assertThat(LvVolumeNames.WITH_BASES.isVolumeName("base-1-x")).isTrue();
        assertThat(LvVolumeNames.VM_ONLY.isVolumeName("vm-1-a")).isTrue();
    }

    @Test
    void illegalCharacters() {
        for (String bad :
                new String[] {"vm-100-disk 0", "vm-100-disk-0-", "-vm", "vm/100", "vm-100-disk-0:x", "a", ""}) {
            assertBad(LvVolumeNames.VM_ONLY, bad, "lvm name '" + bad + "' contains illegal characters");
            assertBad(LvVolumeNames.WITH_BASES, bad, "lvm name '" + bad + "' contains illegal characters");
        }
    }

    /** lvm2 takes 127 characters, and at most 124 for the group's and the LV's names together (measured, lvm2 2.03). */
    @Test
    void namesLvm2WouldRefuseForTheirLength() {
        String longest = "vm-100-" + "x".repeat(120);
        assertThat(LvVolumeNames.VM_ONLY.parse(longest, VolumeFormat.RAW).name())
                .hasSize(127);
        assertBad(
                LvVolumeNames.VM_ONLY,
                longest + "x",
                "lvm name '" + longest + "x' is too long (128 characters, lvm2 takes at most 127)");
        assertThat(LvVolumeNames.VM_ONLY.hasVolumeForm(longest + "x")).isFalse();
        LvmNames.checkInGroup("vg", "vm-100-" + "x".repeat(115));
        assertThatThrownBy(() -> LvmNames.checkInGroup("vg", "vm-100-" + "x".repeat(116)))
                .hasMessageEndingWith(
                        "is too long for volume group 'vg' (2 + 123 characters, lvm2 takes at most 124 together)");
    }

    @Test
    void namesThatAreNotVolumes() {
        for (String bad : new String[] {
            "del-vm-100-disk-0", "vm-disk-0", "snap_vm-100-disk-0_s1", "snap_vm-100-disk-0_s1.qcow2", "root", "data"
        }) {
            assertBad(LvVolumeNames.VM_ONLY, bad, "unable to parse lvm volume name '" + bad + "'");
            assertBad(LvVolumeNames.WITH_BASES, bad, "unable to parse lvm volume name '" + bad + "'");
            assertThat(LvVolumeNames.VM_ONLY.hasVolumeForm(bad)).as(bad).isFalse();
        }
    }

    /** A VMID beyond an int is refused; its form alone is still a volume's. */
    @Test
    void vmidOutOfRange() {
        String huge = "vm-99999999999-disk-0";
        assertBad(LvVolumeNames.VM_ONLY, huge, "unable to parse lvm volume name '" + huge + "' - VMID out of range");
        assertBad(LvVolumeNames.WITH_BASES, huge, "unable to parse lvm volume name '" + huge + "' - VMID out of range");
        assertThat(LvVolumeNames.VM_ONLY.hasVolumeForm(huge)).isTrue();
    }

    @Test
    void snapshotLvs() {
        assertThat(LvVolumeNames.snapshotLv("vm-100-disk-0", "s1")).isEqualTo("snap_vm-100-disk-0_s1");
        assertThat(LvVolumeNames.isSnapshotOf("snap_vm-100-disk-0_before-upgrade", "vm-100-disk-0"))
                .isTrue();
        assertThat(LvVolumeNames.isSnapshotOf("snap_vm-100-disk-0_1st", "vm-100-disk-0"))
                .isFalse();
        assertThat(LvVolumeNames.isSnapshotOf("snap_vm-100-disk-1_s1", "vm-100-disk-0"))
                .isFalse();
        assertThat(LvVolumeNames.isSnapshotOf("snap_vm-100-disk-0", "vm-100-disk-0"))
                .isFalse();
    }

    @Test
    void aVmVolumeBecomesABaseVolume() {
        assertThat(LvVolumeNames.baseName("vm-100-disk-0")).isEqualTo("base-100-disk-0");
        assertThatThrownBy(() -> LvVolumeNames.baseName("base-100-disk-0"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static void assertBad(LvVolumeNames names, String volname, String message) {
        assertThatThrownBy(() -> names.parse(volname, VolumeFormat.RAW))
                .as(volname)
                .isInstanceOf(StorageException.class)
                .hasMessage(message)
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
        assertThat(names.isVolumeName(volname)).as(volname).isFalse();
    }
}
