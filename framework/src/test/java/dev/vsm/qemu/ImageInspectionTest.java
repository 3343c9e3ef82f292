package dev.vsm.qemu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.exec.ProcessCommandRunner;
import dev.vsm.progress.ProgressOutput;
import dev.vsm.spi.Command;
import dev.vsm.spi.CommandRunner;
import dev.vsm.spi.Console;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.QemuImg.ImageFile;
import dev.vsm.spi.QemuImg.Inspection;
import dev.vsm.testing.Tools;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link QemuImgRunner#inspect}: reading headers in Java gives what {@code qemu-img info} gives,
 * on the same images, without a process per image; a bad image is an error for itself alone.
 */
class ImageInspectionTest {
    @TempDir
    Path dir;

    /** Synchronized: the stat process runs on a thread of its own. */
    private final List<List<String>> ran = java.util.Collections.synchronizedList(new ArrayList<>());

    private QemuImgRunner reading;
    private QemuImgRunner qemuImgOnly;

    /** Runs commands for real and remembers them. */
    private final class Recording implements CommandRunner {
        private final CommandRunner real = new ProcessCommandRunner(false, SILENT);

        @Override
        public Result query(Command command) {
            ran.add(command.argv());
            return real.query(command);
        }

        @Override
        public Result run(Command command) {
            ran.add(command.argv());
            return real.run(command);
        }
    }

    private static final Console SILENT = new Console() {
        @Override
        public void info(String line) {}

        @Override
        public void warn(String line) {}
    };

    @BeforeEach
    void setUp() {
        ProcessCommandRunner real = new ProcessCommandRunner(false, SILENT);
        reading = new QemuImgRunner(
                new Recording(),
                real,
                SILENT,
                ProgressOutput.none(),
                new QemuImgRunner.Settings("qemu-img", true, null));
        qemuImgOnly = new QemuImgRunner(
                real, SILENT, ProgressOutput.none(), new QemuImgRunner.Settings("qemu-img", false, null));
    }

    @Test
    void sameAnswersAsQemuImgInfo() throws Exception {
        List<ImageFile> images = new ArrayList<>();
        images.add(create("base.qcow2", "qcow2", "-o", "preallocation=metadata", "64M"));
        images.add(create("v2.qcow2", "qcow2", "-o", "compat=0.10", "1G"));
        images.add(create("sub.qcow2", "qcow2", "-o", "extended_l2=on,cluster_size=128k", "1T"));
        images.add(create(
                "clone.qcow2", "qcow2", "-F", "qcow2", "-b", "base.qcow2", "-o", "extended_l2=on,cluster_size=128k"));
        images.add(create(
                "clone-abs.qcow2",
                "qcow2",
                "-F",
                "qcow2",
                "-b",
                dir.resolve("base.qcow2").toString()));
        images.add(create("disk.raw", "raw", "1G"));
        images.add(create("full.raw", "raw", "-o", "preallocation=full", "3M"));
        images.add(create("disk.vmdk", "vmdk", "1G"));
        Path odd = dir.resolve("odd.raw");
        Files.writeString(odd, "not a multiple of 512");
        images.add(new ImageFile(odd, "raw"));
        Path dirty = dir.resolve("dirty.qcow2");
        Files.copy(dir.resolve("v2.qcow2"), dirty);
        Tools.run(dir, "qemu-img", "amend", "-f", "qcow2", "-o", "compat=1.1", dirty.toString());
        setIncompatibleBits(dirty, Qcow2Header.DIRTY);
        images.add(new ImageFile(dirty, "qcow2"));
        images.add(new ImageFile(dir.resolve("sub.qcow2"), null));

        List<Inspection> fast = reading.inspect(images);
        for (int i = 0; i < images.size(); i++) {
            ImageFile image = images.get(i);
            ImageInfo expected = qemuImgOnly.info(image.path(), image.format());
            assertThat(fast.get(i).path()).isEqualTo(image.path());
            assertThat(fast.get(i).orThrow()).as(image.toString()).isEqualTo(expected);
        }
        assertThat(fast.get(2).info().l2CacheBytes()).isEqualTo((1L << 40) / (128 * 1024) * 16);
        // qemu-img ran only for what is not qcow2 or raw, the dirty image and the image of unknown format
        assertThat(ran)
                .filteredOn(argv -> argv.get(0).equals("qemu-img"))
                .extracting(argv -> argv.get(3))
                .containsExactly(
                        dir.resolve("disk.vmdk").toString(),
                        dirty.toString(),
                        dir.resolve("sub.qcow2").toString());
        assertThat(ran).filteredOn(argv -> argv.get(0).equals("stat")).hasSize(1);
    }

    @Test
    void oneProcessForAllocationWhateverTheNumberOfImages() {
        List<ImageFile> images = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            images.add(create("vm-" + i + ".qcow2", "qcow2", "1G"));
        }
        ran.clear();
        assertThat(reading.inspect(images))
                .allSatisfy(i -> assertThat(i.error()).isNull());
        assertThat(ran).hasSize(1);
        assertThat(ran.get(0).subList(0, 4)).containsExactly("stat", "-L", "--printf=%b %B %Z %n\\0", "--");
    }

    @Test
    void aFileThatVanishedLeavesTheOthersTheirAllocationWithAFewProcessesMore() {
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            files.add(create("vm-" + i + ".qcow2", "qcow2", "1G").path());
        }
        files.add(5, dir.resolve("gone.qcow2"));
        ran.clear();
        java.util.Map<Path, BatchStat.Entry> bytes = new BatchStat(new Recording()).of(files);
        assertThat(bytes).doesNotContainKey(dir.resolve("gone.qcow2")).hasSize(16);
        assertThat(bytes.values()).allSatisfy(b -> assertThat(b.allocated()).isPositive());
        // the failing batch is halved until the vanished file stands alone: 17 files, 9 processes
        assertThat(ran).hasSizeLessThanOrEqualTo(2 * 5);
    }

    @Test
    void aBrokenImageIsAnErrorForItselfOnly() throws Exception {
        ImageFile good = create("good.qcow2", "qcow2", "1G");
        ImageFile cut = create("cut.qcow2", "qcow2", "1G");
        try (RandomAccessFile f = new RandomAccessFile(cut.path().toFile(), "rw")) {
            f.setLength(50);
        }
        Path notQcow2 = dir.resolve("text.qcow2");
        Files.writeString(notQcow2, "hello");
        ImageFile gone = new ImageFile(dir.resolve("gone.qcow2"), "qcow2");
        ImageFile alsoGood = create("good.raw", "raw", "1M");

        List<Inspection> found = reading.inspect(List.of(good, cut, new ImageFile(notQcow2, "qcow2"), gone, alsoGood));
        assertThat(found.get(0).info().virtualSize()).isEqualTo(1L << 30);
        assertThat(found.get(1).error())
                .hasMessage(
                        "invalid qcow2 image '" + cut.path()
                                + "': truncated: the qcow2 header (72 bytes at offset 0) is past the end of the file (50 bytes)");
        assertThat(found.get(2).error()).hasMessage("cannot read '" + notQcow2 + "': Image is not in qcow2 format");
        assertThat(found.get(3).error().getMessage()).startsWith("qemu-img info '" + gone.path() + "' failed");
        assertThat(found.get(4).info().virtualSize()).isEqualTo(1L << 20);
    }

    private ImageFile create(String name, String format, String... args) {
        List<String> argv = new ArrayList<>(List.of("qemu-img", "create", "-q", "-f", format));
        List<String> rest = new ArrayList<>(List.of(args));
        String size = rest.isEmpty()
                        || rest.get(rest.size() - 1).startsWith("-")
                        || !Character.isDigit(rest.get(rest.size() - 1).charAt(0))
                ? null
                : rest.remove(rest.size() - 1);
        argv.addAll(rest);
        argv.add(dir.resolve(name).toString());
        if (size != null) {
            argv.add(size);
        }
        Tools.run(dir, argv.toArray(String[]::new));
        return new ImageFile(dir.resolve(name), format);
    }

    private static void setIncompatibleBits(Path img, long bits) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
            f.seek(72);
            f.writeLong(bits);
        }
    }
}
