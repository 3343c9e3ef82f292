package dev.vsm.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class DiskNamesTest {
    @Test
    void firstDiskIsZero() {
        assertThat(DiskNames.nextFree(List.of(), "local", 100, VolumeFormat.RAW, true, true))
                .isEqualTo("vm-100-disk-0.raw");
        assertThat(DiskNames.nextFree(List.of(), "lvm", 100, null, false, false))
                .isEqualTo("vm-100-disk-0");
    }

    @Test
    void subvolsGetTheirOwnPrefix() {
        assertThat(DiskNames.nextFree(
                        List.of("local:100/vm-100-disk-0.raw"), "local", 100, VolumeFormat.SUBVOL, true, true))
                .isEqualTo("subvol-100-disk-1.subvol");
    }

    @Test
    void dirSharesOneNumberSpaceAcrossFormatsAndPrefixes() {
        List<String> existing = List.of(
                "local:100/vm-100-disk-0.raw",
                "local:100/base-100-disk-1.qcow2",
                "local:100/subvol-100-disk-2.subvol",
                "local:100/basevol-100-disk-3.subvol",
                "local:100/vm-100-disk-5.vmdk");
        assertThat(DiskNames.nextFree(existing, "local", 100, VolumeFormat.QCOW2, true, true))
                .isEqualTo("vm-100-disk-4.qcow2");
    }

    @Test
    void lvmCountsRawAndQcow2ForRawButOnlyQcow2ForQcow2() {
        List<String> lvs = List.of("vm-100-disk-0", "vm-100-disk-1.qcow2", "del-vm-100-disk-2");
        assertThat(DiskNames.nextFree(lvs, "lvm", 100, VolumeFormat.RAW, false, false))
                .isEqualTo("vm-100-disk-3");
        assertThat(DiskNames.nextFree(lvs, "lvm", 100, VolumeFormat.QCOW2, true, false))
                .isEqualTo("vm-100-disk-0.qcow2");
    }

    @Test
    void otherGuestsDoNotCount() {
        List<String> existing =
                List.of("vm-1000-disk-0", "vm-10-disk-0", "local:10/base-10-disk-0.raw/100/vm-100-disk-1.qcow2");
        assertThat(DiskNames.nextFree(existing, "local", 100, VolumeFormat.RAW, true, true))
                .isEqualTo("vm-100-disk-0.raw");
    }

    @Test
    void numbersCountAsWritten() {
        assertThat(DiskNames.nextFree(List.of("vm-100-disk-00", "vm-100-disk-01"), "lvm", 100, null, false, false))
                .as("pve compares the digits as strings: 00 does not take 0")
                .isEqualTo("vm-100-disk-0");
    }

    @Test
    void givesUpAfter1024Disks() {
        List<String> full = IntStream.range(0, DiskNames.MAX_VOLUMES_PER_GUEST)
                .mapToObj(i -> "vm-100-disk-" + i)
                .toList();
        assertThatThrownBy(() -> DiskNames.nextFree(full, "lvm", 100, null, false, false))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FAILED))
                .hasMessage("unable to allocate an image name for VM 100 in storage 'lvm'");
        assertThat(DiskNames.nextFree(full.subList(0, 1023), "lvm", 100, null, false, false))
                .isEqualTo("vm-100-disk-1023");
    }
}
