package dev.vsm.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The thin metadata writer: what it writes, lvm2 reads back as thin pools, volumes and snapshots. */
@RootTest
class ThinMetadataTest {
    private static final long MIB = 1024 * 1024;

    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(128);

    private List<String> lvs() {
        return vg.lvm(
                        "lvs",
                        "-a",
                        "--noheadings",
                        "--units",
                        "b",
                        "--nosuffix",
                        "--separator",
                        ":",
                        "-o",
                        "lv_name,lv_size,lv_attr,pool_lv,origin,metadata_size",
                        vg.name())
                .lines()
                .map(String::strip)
                .filter(l -> !l.isEmpty())
                .sorted()
                .toList();
    }

    @Test
    void poolsVolumesSnapshotsAndBasesAsLvm2ReportsThem() {
        vg.createLv("plain", 4);
        ThinMetadata.of(vg)
                .pool("data", 32)
                .volume("data", "vm-100-disk-0", 16)
                .snapshot("data", "snap_vm-100-disk-0_s1", "vm-100-disk-0", 16)
                .base("data", "base-101-disk-0", 8)
                .write();
        assertThat(lvs())
                .containsExactly(
                        "[data_tdata]:" + 32 * MIB + ":Twi-XX----:::",
                        "[data_tmeta]:" + 4 * MIB + ":ewi-XX----:::",
                        "base-101-disk-0:" + 8 * MIB + ":Vri-XXtz-k:data::",
                        "data:" + 32 * MIB + ":twi-XXtz--:::" + 4 * MIB,
                        "plain:" + 4 * MIB + ":-wi-XX----:::",
                        "snap_vm-100-disk-0_s1:" + 16 * MIB + ":Vri-XXtz-k:data:vm-100-disk-0:",
                        "vm-100-disk-0:" + 16 * MIB + ":Vwi-XXtz--:data::");
        // the pool's data and metadata hold real extents of the PV; thin volumes hold none
        assertThat(vg.freeBytes()).isEqualTo((124 - 4 - 4 - 32) * MIB);
    }

    @Test
    void writesAddToWhatIsThereAndPoolsFitAroundOtherLvs() {
        ThinMetadata.of(vg).pool("data", 16).volume("data", "vm-100-disk-0", 8).write();
        vg.createLv("plain", 4);
        ThinMetadata.of(vg)
                .pool("other", 8)
                .volume("other", "vm-100-disk-1", 4)
                .volume("data", "vm-101-disk-0", 4)
                .write();
        assertThat(vg.lvNames())
                .containsExactly("data", "other", "plain", "vm-100-disk-0", "vm-100-disk-1", "vm-101-disk-0");
        assertThat(vg.lvm("lvs", "--noheadings", "-o", "pool_lv", vg.name() + "/vm-101-disk-0")
                        .strip())
                .isEqualTo("data");
        assertThat(vg.lvm("lvs", "--noheadings", "-o", "pool_lv", vg.name() + "/vm-100-disk-1")
                        .strip())
                .isEqualTo("other");
        assertThat(vg.freeBytes()).isEqualTo((124 - 4 - 16 - 4 - 4 - 8) * MIB);
    }
}
