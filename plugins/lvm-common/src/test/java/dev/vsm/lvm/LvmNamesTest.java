package dev.vsm.lvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.spi.VolumeFormat;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class LvmNamesTest {
    @Test
    void anLvOfTheGroupByItsDevicePathOrItsDeviceMapperName() {
        assertThat(LvmNames.lvAtPath("san", Path.of("/dev/san/vm-100-disk-0"))).contains("vm-100-disk-0");
        assertThat(LvmNames.lvAtPath("san", Path.of("/dev/san/../san/./vm-100-disk-0")))
                .contains("vm-100-disk-0");
        assertThat(LvmNames.lvAtPath("san", Path.of("/dev/mapper/san-vm--100--disk--0")))
                .contains("vm-100-disk-0");
        assertThat(LvmNames.lvAtPath("my-vg", Path.of("/dev/mapper/my--vg-vm--100--disk--0")))
                .contains("vm-100-disk-0");
    }

    @Test
    void anyOtherPathIsNoLvOfTheGroup() {
        assertThat(LvmNames.lvAtPath("san", Path.of("/dev/other/vm-100-disk-0")))
                .isEmpty();
        assertThat(LvmNames.lvAtPath("san", Path.of("/dev/san"))).isEmpty();
        assertThat(LvmNames.lvAtPath("san", Path.of("/dev/san/x/vm-100-disk-0")))
                .isEmpty();
        assertThat(LvmNames.lvAtPath("san", Path.of("/tmp/san/vm-100-disk-0"))).isEmpty();
        assertThat(LvmNames.lvAtPath("my", Path.of("/dev/mapper/my--vg-vm--100--disk--0")))
                .as("group my-vg, not my")
                .isEmpty();
        assertThat(LvmNames.lvAtPath("my-vg", Path.of("/dev/mapper/my-vg-vm--100--disk--0")))
                .as("group my, LV vg-vm-100-disk-0")
                .isEmpty();
        assertThat(LvmNames.lvAtPath("san", Path.of("/dev/mapper/san-vm-100"))).isEmpty();
        assertThat(LvmNames.lvAtPath("san", Path.of("/dev/mapper/san-"))).isEmpty();
    }

    @Test
    void aPathNamesAVolumeOnlyWhenTheParserTakesItsLv() {
        assertThat(LvmNames.volumeAtPath(
                        "san",
                        Path.of("/dev/mapper/san-vm--100--disk--0"),
                        lv -> LvVolumeNames.VM_ONLY.parse(lv, VolumeFormat.RAW)))
                .contains("vm-100-disk-0");
        assertThat(LvmNames.volumeAtPath(
                        "san", Path.of("/dev/san/data"), lv -> LvVolumeNames.VM_ONLY.parse(lv, VolumeFormat.RAW)))
                .as("another LV of the group")
                .isEmpty();
        assertThat(LvmNames.volumeAtPath("san", Path.of("/tmp/vm-100-disk-0"), lv -> {
                    throw new AssertionError("not an LV: not parsed");
                }))
                .isEmpty();
    }
}
