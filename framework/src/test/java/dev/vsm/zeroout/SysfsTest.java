package dev.vsm.zeroout;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A fake sysfs laid out as the kernel's: class/block/&lt;name&gt; links into devices/, partitions inside their disk. */
class SysfsTest {
    @TempDir
    Path root;

    @Test
    void readsWriteZeroesMaxBytesOfADisk() throws IOException {
        FakeSysfs.disk(root, "dm-3", 4294966784L);
        assertThat(new Sysfs(root).writeZeroesMaxBytes("dm-3")).isEqualTo(4294966784L);
    }

    @Test
    void missingOrNonNumericMaximumReadsAsZero() throws IOException {
        Sysfs sysfs = new Sysfs(root);
        assertThat(sysfs.writeZeroesMaxBytes("sdz")).isZero();
        Path file = FakeSysfs.disk(root, "sdb", 0).resolve("queue/write_zeroes_max_bytes");
        Files.writeString(file, "garbage\n");
        assertThat(sysfs.writeZeroesMaxBytes("sdb")).isZero();
        Files.writeString(file, "");
        assertThat(sysfs.writeZeroesMaxBytes("sdb")).isZero();
        Files.writeString(file, "  1048576  \n33\n");
        assertThat(sysfs.writeZeroesMaxBytes("sdb")).isEqualTo(1048576);
        Files.writeString(file, "99999999999999999999999\n");
        assertThat(sysfs.writeZeroesMaxBytes("sdb")).as("too large to be true").isZero();
    }

    @Test
    void aPartitionIsServedByItsDisksQueue() throws IOException {
        FakeSysfs.disk(root, "sda", 1048576);
        FakeSysfs.partition(root, "sda", "sda1");
        FakeSysfs.disk(root, "nvme0n1", 0);
        FakeSysfs.partition(root, "nvme0n1", "nvme0n1p2");
        Sysfs sysfs = new Sysfs(root);
        assertThat(sysfs.queueOf("sda1")).isEqualTo("sda");
        assertThat(sysfs.queueOf("nvme0n1p2")).isEqualTo("nvme0n1");
        assertThat(sysfs.queueOf("sda")).isEqualTo("sda");
        assertThat(sysfs.queueOf("unknown")).isEqualTo("unknown");
        assertThat(sysfs.partitions("sda")).containsExactly("sda1");
        assertThat(sysfs.partitions("sda1")).isEmpty();
    }

    @Test
    void sizeHoldersAndWriteCounter() throws IOException {
        Path disk = FakeSysfs.disk(root, "loop7", 1);
        Files.writeString(disk.resolve("size"), "8192\n");
        Files.createDirectories(disk.resolve("holders/dm-0"));
        Files.writeString(disk.resolve("stat"), "  144 0 6264 10 3424 0 10485760 16560 0 4132 16570 0 0 0 0\n");
        Sysfs sysfs = new Sysfs(root);
        assertThat(sysfs.sizeBytes("loop7")).contains(8192L * 512);
        assertThat(sysfs.holders("loop7")).containsExactly("dm-0");
        assertThat(sysfs.bytesWritten("loop7")).contains(10485760L * 512);
        assertThat(sysfs.sizeBytes("loop8")).isEmpty();
        assertThat(sysfs.holders("loop8")).isEmpty();
        assertThat(sysfs.bytesWritten("loop8")).isEmpty();
    }
}
