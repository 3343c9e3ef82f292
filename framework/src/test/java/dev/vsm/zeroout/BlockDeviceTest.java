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
    void onlyBlockDevicesAreBlockDevices() throws IOException {
        assertThat(BlockDevice.isBlockDevice(HostBlockDevice.any())).isTrue();
        assertThat(BlockDevice.isBlockDevice(Path.of("/dev/null"))).as("a character device").isFalse();
        assertThat(BlockDevice.isBlockDevice(Files.createFile(tmp.resolve("f")))).isFalse();
        assertThat(BlockDevice.isBlockDevice(tmp)).isFalse();
        assertThat(BlockDevice.isBlockDevice(tmp.resolve("missing"))).isFalse();
    }
}
