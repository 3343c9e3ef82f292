package dev.vsm.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** pve's {@code archive_info} as far as listing uses it; the expected times are pve's list_volumes_test.pm values (UTC). */
class BackupArchiveNameTest {
    @Test
    void standardNamesGiveTypeOwnerAndTime() {
        assertThat(BackupArchiveName.parse("vzdump-qemu-16110-2020_03_30-21_11_40.vma.gz", ZoneOffset.UTC))
                .contains(new BackupArchiveName("qemu", 16110, 1585602700L));
        assertThat(BackupArchiveName.parse("vzdump-lxc-19254-2019_01_21-19_29_19.tar", ZoneOffset.UTC))
                .contains(new BackupArchiveName("lxc", 19254, 1548098959L));
    }

    @Test
    void timesAreLocalTimeOfTheGivenZone() {
        assertThat(BackupArchiveName.parse("vzdump-qemu-100-2020_03_30-21_11_40.vma", ZoneId.of("Europe/Vienna"))
                        .orElseThrow()
                        .ctime())
                .isEqualTo(1585602700L - 2 * 3600);
    }

    @Test
    void otherVzdumpNamesGiveOnlyTheType() {
        assertThat(BackupArchiveName.parse("vzdump-openvz-my-backup.tar.bz2", ZoneOffset.UTC))
                .contains(new BackupArchiveName("openvz", null, null));
        assertThat(BackupArchiveName.parse("vzdump-qemu-100-2020_13_45-21_11_40.vma", ZoneOffset.UTC))
                .as("an impossible date")
                .contains(new BackupArchiveName("qemu", 100, null));
    }

    @Test
    void foreignNamesAreNoVzdumpArchives() {
        assertThat(BackupArchiveName.parse("vzdump-none-100-2020_03_30-21_11_40.vma", ZoneOffset.UTC))
                .isEmpty();
        assertThat(BackupArchiveName.parse("backup-100.vma", ZoneOffset.UTC)).isEmpty();
        assertThat(BackupArchiveName.parse("vzdump-qemu-100-2020_03_30-21_11_40.vma.xz", ZoneOffset.UTC))
                .isEmpty();
    }
}
