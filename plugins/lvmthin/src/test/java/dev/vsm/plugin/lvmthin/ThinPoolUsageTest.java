package dev.vsm.plugin.lvmthin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.lvm.LogicalVolume;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageStatus;
import dev.vsm.spi.StorageStatus.MetadataUsage;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A pool's status: total, used from data percent, metadata use, the warnings above 80% and for a pool that does not zero new blocks. */
class ThinPoolUsageTest {
    private static final long GIB = 1024L * 1024 * 1024;

    private static LogicalVolume pool(double dataPercent, double metadataPercent) {
        return new LogicalVolume(
                "pve",
                "data",
                100 * GIB,
                "twi-aotz--",
                "",
                dataPercent,
                metadataPercent,
                0,
                "uuid",
                List.of(),
                GIB,
                1700000000L,
                true);
    }

    @Test
    void statusIsThePoolsSizeAndDataUse() {
        StorageStatus s = new ThinPoolUsage("local-lvm", pool(25.5, 10)).status();
        assertThat(s.total()).isEqualTo(100 * GIB);
        assertThat(s.used()).isEqualTo((long) (25.5 * 100 * GIB / 100));
        assertThat(s.avail()).isEqualTo(s.total() - s.used());
        assertThat(s.active()).isTrue();
        assertThat(s.metadata()).isEqualTo(MetadataUsage.of(GIB / 10, GIB));
        assertThat(s.warnings()).isEmpty();
    }

    @Test
    void eightyPercentIsStillFineAboveItWarns() {
        assertThat(new ThinPoolUsage("local-lvm", pool(80, 80)).warnings()).isEmpty();
        assertThat(new ThinPoolUsage("local-lvm", pool(80.01, 12)).warnings())
                .containsExactly(
                        "storage 'local-lvm': thin pool pve/data data is 80.01% full (warning above 80%) - extend the pool or free "
                                + "volumes before it fills up");
        assertThat(new ThinPoolUsage("local-lvm", pool(3, 91.5)).warnings())
                .containsExactly(
                        "storage 'local-lvm': thin pool pve/data metadata is 91.50% full (warning above 80%) - extend the pool or "
                                + "free volumes before it fills up");
        assertThat(new ThinPoolUsage("local-lvm", pool(99, 99)).status().warnings())
                .hasSize(2);
    }

    @Test
    void aPoolThatDoesNotZeroNewBlocksIsReported() {
        LogicalVolume notZeroing = new LogicalVolume(
                "pve", "data", 100 * GIB, "twi-aot---", "", 3, 3, 0, "uuid", List.of(), GIB, 1700000000L, true);
        assertThat(new ThinPoolUsage("local-lvm", notZeroing).warnings())
                .containsExactly(
                        "storage 'local-lvm': thin pool pve/data does not zero new blocks (lvs -o zero) - a new volume may read what a "
                                + "freed or wiped one held; turn it on with lvchange -Zy pve/data");
    }

    @Test
    void aFullPoolRefusesNewVolumesSayingWhatToDo() {
        new ThinPoolUsage("local-lvm", pool(99.99, 99.99)).refuseWhenFull("allocate vm-100-disk-1");
        assertThatThrownBy(
                        () -> new ThinPoolUsage("local-lvm", pool(100, 12.5)).refuseWhenFull("allocate vm-100-disk-1"))
                .isInstanceOf(StorageException.class)
                .hasMessage("storage 'local-lvm': cannot allocate vm-100-disk-1: thin pool "
                        + "pve/data is full (data 100.00%, metadata 12.50%) - extend the pool (lvextend -L +<size> pve/data, or "
                        + "--poolmetadatasize for metadata) or free volumes");
        assertThatThrownBy(() -> new ThinPoolUsage("local-lvm", pool(40, 100)).refuseWhenFull("allocate vm-100-disk-1"))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("is full (data 40.00%, metadata 100.00%)");
    }
}
