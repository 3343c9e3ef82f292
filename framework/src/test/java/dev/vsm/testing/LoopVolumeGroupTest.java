package dev.vsm.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The test volume group helper itself: it makes a real VG and leaves nothing behind. */
class LoopVolumeGroupTest {
    @RootTest
    @Test
    void makesAVolumeGroupOnALoopDeviceAndTearsItAllDown() throws Exception {
        LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(32).create();
        String device;
        Path dir;
        Path file;
        try {
            device = vg.device();
            dir = vg.systemDir().getParent();
            file = vg.backingFile();
            assertThat(device).startsWith("/dev/loop");
            assertThat(Files.readString(vg.systemDir().resolve("lvm.conf")))
                    .contains("activation = 0", "a|^" + device + "$|");
            assertThat(vg.lvm("vgs", "--noheadings", "-o", "vg_name").strip()).isEqualTo(vg.name());
            assertThat(vg.freeBytes()).isEqualTo(28L * 1024 * 1024);
            vg.createLv("del-vm-100-disk-0", 4);
            assertThat(vg.lvNames()).containsExactly("del-vm-100-disk-0");
            assertThat(vg.lvSize("del-vm-100-disk-0")).contains(4L * 1024 * 1024);
            assertThat(vg.tags("del-vm-100-disk-0")).isEmpty();
        } finally {
            vg.close();
        }
        assertThat(dir).doesNotExist();
        assertThat(file).doesNotExist();
        String attached = new String(new ProcessBuilder("/sbin/losetup", "-a")
                .start()
                .getInputStream()
                .readAllBytes());
        assertThat(attached).doesNotContain(file.toString());
    }

    @Test
    void namesAreUnique() {
        assertThat(LoopVolumeGroup.ofMiB(8).name())
                .startsWith("vsmtest")
                .isNotEqualTo(LoopVolumeGroup.ofMiB(8).name());
    }
}
