package dev.vsm.zeroout;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlockDeviceTest {
    @TempDir
    Path tmp;

    @Test
    void resolvesALinkToTheKernelNameAndItsQueue() throws IOException {
        Path dev = HostBlockDevice.any();
        Path sys = tmp.resolve("sys");
        String name = dev.getFileName().toString();
        FakeSysfs.disk(sys, "parentdisk", 0);
        FakeSysfs.partition(sys, "parentdisk", name);
        Path link = Files.createSymbolicLink(tmp.resolve("lv"), dev);
        BlockDevice resolved = BlockDevice.resolve(link, new Sysfs(sys));
        assertThat(resolved).isEqualTo(new BlockDevice(link, dev.toRealPath(), name, "parentdisk"));
    }

    @Test
    void aNodeNamedOtherwiseIsFoundByItsDeviceNumber() throws IOException, InterruptedException {
        Path dev = HostBlockDevice.any();
        Path sys = tmp.resolve("sys");
        FakeSysfs.disk(sys, "dm-7", 4096);
        Process stat = new ProcessBuilder("stat", "-L", "-c", "%t:%T", dev.toString()).start();
        String[] hex = new String(stat.getInputStream().readAllBytes()).strip().split(":");
        assertThat(stat.waitFor()).isZero();
        FakeSysfs.number(sys, "dm-7", Long.parseLong(hex[0], 16) + ":" + Long.parseLong(hex[1], 16));
        // a node named like a /dev/mapper entry, as lvm2 makes them without udev: its name says nothing
        Path link = Files.createSymbolicLink(tmp.resolve("vg-lv"), dev);
        BlockDevice resolved = BlockDevice.resolve(link, new Sysfs(sys));
        assertThat(resolved.name()).isEqualTo("dm-7");
        assertThat(resolved.queue()).isEqualTo("dm-7");
    }

    @Test
    void onlyBlockDevicesAreBlockDevices() throws IOException {
        assertThat(BlockDevice.isBlockDevice(HostBlockDevice.any())).isTrue();
        assertThat(BlockDevice.isBlockDevice(Path.of("/dev/null")))
                .as("a character device")
                .isFalse();
        assertThat(BlockDevice.isBlockDevice(Files.createFile(tmp.resolve("f"))))
                .isFalse();
        assertThat(BlockDevice.isBlockDevice(tmp)).isFalse();
        assertThat(BlockDevice.isBlockDevice(tmp.resolve("missing"))).isFalse();
    }
}
