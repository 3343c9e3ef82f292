package dev.vsm.zeroout;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Mounts, swaps and holders of a device and its partitions, from a fake /proc and sysfs. */
class DeviceUseTest {
    @TempDir
    Path root;

    private Path proc;
    private DeviceUse use;
    private final BlockDevice sdx = new BlockDevice(Path.of("/dev/sdx"), Path.of("/dev/sdx"), "sdx", "sdx");

    @BeforeEach
    void layout() throws IOException {
        Path sys = root.resolve("sys");
        FakeSysfs.disk(sys, "sdx", 0);
        FakeSysfs.partition(sys, "sdx", "sdx1");
        FakeSysfs.partition(sys, "sdx", "sdx2");
        proc = Files.createDirectories(root.resolve("proc"));
        Files.writeString(proc.resolve("mounts"), "/dev/vda1 / ext4 rw 0 0\nproc /proc proc rw 0 0\n");
        Files.writeString(proc.resolve("swaps"), "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
        use = new DeviceUse(new Sysfs(sys), proc);
    }

    @Test
    void anUnusedDeviceIsFree() {
        assertThat(use.why(sdx)).isEmpty();
    }

    @Test
    void aMountedPartitionKeepsTheDiskInUse() throws IOException {
        Files.writeString(
                proc.resolve("mounts"),
                "/dev/sdx2 /mnt/my\\040data ext4 rw 0 0\n",
                java.nio.file.StandardOpenOption.APPEND);
        assertThat(use.why(sdx)).contains("'/dev/sdx' is mounted on /mnt/my data (sdx2) - unmount it first");
    }

    @Test
    void theDeviceItselfMounted() throws IOException {
        Files.writeString(
                proc.resolve("mounts"), "/dev/sdx /srv xfs rw 0 0\n", java.nio.file.StandardOpenOption.APPEND);
        assertThat(use.why(sdx)).hasValueSatisfying(w -> assertThat(w).contains("is mounted on /srv (sdx)"));
    }

    @Test
    void swapOnAPartition() throws IOException {
        Files.writeString(
                proc.resolve("swaps"),
                "/dev/sdx1                               partition\t8388604\t\t0\t\t-2\n",
                java.nio.file.StandardOpenOption.APPEND);
        assertThat(use.why(sdx)).contains("'/dev/sdx' is in use as swap (sdx1) - swapoff it first");
    }

    @Test
    void aHolderOnAPartition() throws IOException {
        Files.createDirectories(root.resolve("sys/devices/virtual/block/sdx/sdx1/holders/dm-7"));
        assertThat(use.why(sdx))
                .hasValueSatisfying(w -> assertThat(w).startsWith("'/dev/sdx' is in use: sdx1 is held by dm-7"));
    }

    @Test
    void unescapesProcFields() {
        assertThat(DeviceUse.unescape("/a\\040b\\011c\\134d")).isEqualTo("/a b\tc\\d");
        assertThat(DeviceUse.unescape("/trailing\\04")).isEqualTo("/trailing\\04");
    }
}
