package dev.vsm.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.engine.DefaultStorageContext;
import dev.vsm.spi.SourceImage;
import dev.vsm.spi.StorageException;
import dev.vsm.testing.RecordingConsole;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checks of {@code vsm import}'s source, on real files and the real qemu-img. */
class SourceImagesTest {
    @TempDir
    Path dir;

    private final SourceImages sources = new SourceImages(
            DefaultStorageContext.builder(new RecordingConsole()).build().qemuImg());

    private static void qemuImg(String... args) throws IOException, InterruptedException {
        String[] argv = Stream.concat(Stream.of("qemu-img"), Stream.of(args)).toArray(String[]::new);
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
    }

    private void refused(Path path, String message) {
        assertThatThrownBy(() -> sources.probe(path, null, false))
                .isInstanceOf(StorageException.class)
                .hasMessage(message)
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
    }

    @Test
    void imagesAreProbed() throws Exception {
        Path qcow2 = dir.resolve("cloud.qcow2");
        qemuImg("create", "-f", "qcow2", qcow2.toString(), "5M");
        assertThat(sources.probe(qcow2, null, false)).isEqualTo(new SourceImage(qcow2, "qcow2", 5L << 20));
        Path raw = Files.write(dir.resolve("disk.img"), new byte[4096]);
        assertThat(sources.probe(raw, null, false)).isEqualTo(new SourceImage(raw, "raw", 4096));
    }

    @Test
    void whatIsNoImageIsRefused() throws IOException {
        refused(dir.resolve("nope.qcow2"), "source '" + dir.resolve("nope.qcow2") + "' does not exist");
        Path dangling = Files.createSymbolicLink(dir.resolve("link.raw"), dir.resolve("gone"));
        refused(dangling, "source '" + dangling + "' does not exist (a dangling symbolic link)");
        refused(dir, "source '" + dir + "' is a directory, not a disk image");
        refused(Path.of("/dev/null"), "source '/dev/null' is neither a file nor a block device");
        Path empty = Files.createFile(dir.resolve("empty.raw"));
        refused(empty, "source '" + empty + "' is empty");
        Path text = Files.writeString(dir.resolve("notes.qcow2"), "not an image\n".repeat(100));
        refused(text, "source '" + text + "' is not a valid qcow2 image (qemu-img reads it as raw data)");
        Path odd = Files.writeString(dir.resolve("notes.txt"), "hello\n");
        refused(
                odd,
                "source '" + odd + "' does not look like a disk image: its 6 bytes are not whole 512-byte sectors "
                        + "(pass --source-format raw to import it as raw data anyway)");
        assertThat(sources.probe(odd, "raw", false).format()).isEqualTo("raw");
    }

    @Test
    void aBlockDeviceNeedsYes() throws IOException {
        Optional<Path> device;
        try (Stream<Path> dev = Files.list(Path.of("/dev"))) {
            device = dev.filter(VolumeWriter::isBlockDevice).findFirst();
        }
        assertThat(device).as("a block device node under /dev").isPresent();
        refused(
                device.get(),
                "source '" + device.get() + "' is a block device: pass --yes to import it (nothing may write "
                        + "to it while it is read)");
    }

    @Test
    void whatQemuImgCannotReadAsTheGivenFormatIsRefused() throws IOException {
        Path raw = Files.write(dir.resolve("disk.raw"), new byte[4096]);
        assertThatThrownBy(() -> sources.probe(raw, "qcow2", false))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("source '" + raw + "' is not a disk image qemu-img can read as qcow2: ");
    }
}
