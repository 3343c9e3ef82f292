package dev.vsm.qemu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.exec.ProcessCommandRunner;
import dev.vsm.progress.ProgressOutput;
import dev.vsm.spi.Console;
import dev.vsm.spi.StorageException;
import dev.vsm.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link QemuImgRunner#imageEnd}: where a qcow2 image's last used cluster ends, which is what was
 * written without preallocation and the whole measure with {@code preallocation=metadata}.
 */
class ImageEndTest {
    private static final long MIB = 1024 * 1024;

    private static final Console SILENT = new Console() {
        @Override
        public void info(String line) {}

        @Override
        public void warn(String line) {}
    };

    @TempDir
    Path dir;

    private final QemuImgRunner qemuImg = new QemuImgRunner(
            new ProcessCommandRunner(false, SILENT),
            SILENT,
            ProgressOutput.none(),
            new QemuImgRunner.Settings("qemu-img", false, null));

    @Test
    void theEndIsWhatWasWrittenWithoutPreallocation() throws Exception {
        Path image = dir.resolve("off.qcow2");
        Tools.run(dir, "qemu-img", "create", "-q", "-f", "qcow2", image.toString(), "64M");
        long empty = qemuImg.imageEnd(image, "qcow2");
        assertThat(empty).isLessThan(MIB);
        Tools.run(dir, "qemu-io", "-f", "qcow2", "-c", "write -P 7 32M 2M", image.toString());
        assertThat(qemuImg.imageEnd(image, "qcow2")).isBetween(empty + 2 * MIB, empty + 3 * MIB);

        Path metadata = dir.resolve("metadata.qcow2");
        Tools.run(
                dir,
                "qemu-img",
                "create",
                "-q",
                "-f",
                "qcow2",
                "-o",
                "preallocation=metadata",
                metadata.toString(),
                "64M");
        assertThat(qemuImg.imageEnd(metadata, "qcow2")).isGreaterThan(64 * MIB);

        Path garbage = dir.resolve("garbage.qcow2");
        Files.writeString(garbage, "not an image");
        assertThatThrownBy(() -> qemuImg.imageEnd(garbage, "qcow2"))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("qemu-img check '" + garbage + "' failed: ");
    }
}
