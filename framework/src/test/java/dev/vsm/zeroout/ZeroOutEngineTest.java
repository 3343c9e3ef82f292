package dev.vsm.zeroout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.exec.ProcessCommandRunner;
import dev.vsm.progress.ProgressOutput;
import dev.vsm.spi.Console;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine under {@code --dry-run} against a real block device node (nothing is written) and a
 * fake sysfs deciding its write-zeroes maximum. Real zeroing is covered end to end in {@code t/}.
 */
class ZeroOutEngineTest {
    @TempDir
    Path tmp;

    private final List<String> lines = new ArrayList<>();
    private final Console console = new Console() {
        @Override
        public void info(String line) {
            lines.add(line);
        }

        @Override
        public void warn(String line) {
            lines.add("WARN " + line);
        }
    };

    private ZeroOutEngine engine(boolean dryRun) {
        return new ZeroOutEngine(
                new ProcessCommandRunner(dryRun, console),
                console,
                ProgressOutput.lines(console),
                new Sysfs(tmp.resolve("sys")),
                dryRun);
    }

    @Test
    void clampsTheStepToTheFakeMaximum() throws IOException {
        Path dev = HostBlockDevice.any();
        FakeSysfs.disk(tmp.resolve("sys"), dev.getFileName().toString(), 1048576);
        engine(true).zero(dev, 32, null);
        assertThat(lines)
                .containsExactly(
                        "reduce stepsize to the maximum supported by the storage: 1048576 bytes",
                        "+ blkdiscard " + dev + " -v --zeroout --step 1048576");
    }

    @Test
    void fallsBackToCstreamWithTheThroughput() throws IOException {
        Path dev = HostBlockDevice.any();
        FakeSysfs.disk(tmp.resolve("sys"), dev.getFileName().toString(), 0);
        engine(true).zero(dev, 32, "5m");
        assertThat(lines).containsExactly("+ cstream -i /dev/zero -o " + dev + " -T 10 -v 1 -b 1048576 -t 5m");
    }

    @Test
    void followsSymlinksToTheKernelNameButWritesThroughThePathGiven() throws IOException {
        Path dev = HostBlockDevice.any();
        FakeSysfs.disk(tmp.resolve("sys"), dev.getFileName().toString(), 2097152);
        Path link = Files.createSymbolicLink(tmp.resolve("vm-100-disk-0"), dev);
        engine(true).zero(link, 1, null);
        assertThat(lines).containsExactly("+ blkdiscard " + link + " -v --zeroout --step 1048576");
    }

    @Test
    void refusesARegularFileEvenInADryRun() throws IOException {
        Path file = Files.writeString(tmp.resolve("disk.raw"), "data");
        Path link = Files.createSymbolicLink(tmp.resolve("link"), file);
        assertThatThrownBy(() -> engine(true).zero(file, 32, null))
                .isInstanceOf(StorageException.class)
                .hasMessage("'" + file + "' is not a block device - refusing to zero it");
        assertThatThrownBy(() -> engine(false).zero(link, 32, null))
                .hasMessage("'" + link + "' is not a block device ('" + file + "') - refusing to zero it");
        assertThatThrownBy(() -> engine(false).zero(tmp, 32, null)).hasMessageContaining("is not a block device");
        assertThat(Files.readString(file)).isEqualTo("data");
        assertThat(lines).isEmpty();
    }

    @Test
    void refusesAMissingDevice() {
        Path missing = tmp.resolve("vg/del-vm-100-disk-0");
        assertThatThrownBy(() -> engine(false).zero(missing, 32, null))
                .isInstanceOf(StorageException.class)
                .satisfies(e -> assertThat(((StorageException) e).kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage("'" + missing
                        + "' does not exist - not zeroing a device that is not there (activate the volume first)");
        assertThat(Files.exists(missing)).isFalse();
    }

    @Test
    void aDryRunPlansADeviceThatActivationWouldCreate() {
        Path missing = tmp.resolve("vg/del-vm-100-disk-0");
        engine(true).zero(missing, 4, null);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith("'" + missing + "' is not there yet (dry run)");
        assertThat(lines.get(1)).isEqualTo("+ blkdiscard " + missing + " -v --zeroout --step 4194304");
    }
}
