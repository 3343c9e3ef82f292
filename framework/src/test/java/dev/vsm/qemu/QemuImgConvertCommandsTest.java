package dev.vsm.qemu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.spi.ImageConversion;
import dev.vsm.spi.ImageConversion.TargetState;
import dev.vsm.spi.ImageOptions;
import dev.vsm.spi.ImageOptions.Subclusters;
import dev.vsm.spi.Preallocation;
import dev.vsm.spi.VolumeFormat;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The convert argv per kind of target: the sparse-size safety rule, and what measure, compare and check run. */
class QemuImgConvertCommandsTest {
    private static final Path SRC = Path.of("/srv/cloud.qcow2");
    private final QemuImgCommands cmds = new QemuImgCommands("qemu-img", true);

    private String convert(Path target, String format, TargetState state, ImageOptions options) {
        return String.join(
                " ",
                cmds.convert(ImageConversion.builder(SRC, "qcow2", target, VolumeFormat.parse(format))
                        .sizeBytes(1L << 30)
                        .targetState(state)
                        .options(options)
                        .build()));
    }

    @Test
    void aNewFileGetsTheStoragesOptionsAndSkipsZeroRuns() {
        assertThat(convert(Path.of("/s/vm-1.raw"), "raw", TargetState.NEW, ImageOptions.DEFAULTS))
                .isEqualTo(
                        "qemu-img convert -p -f qcow2 -O raw -o preallocation=off -S 64k /srv/cloud.qcow2 /s/vm-1.raw");
        assertThat(convert(Path.of("/s/vm-1.qcow2"), "qcow2", TargetState.NEW, ImageOptions.DEFAULTS))
                .isEqualTo(
                        "qemu-img convert -p -f qcow2 -O qcow2 -o preallocation=metadata -S 64k /srv/cloud.qcow2 /s/vm-1.qcow2");
        assertThat(convert(
                        Path.of("/s/vm-1.qcow2"),
                        "qcow2",
                        TargetState.NEW,
                        ImageOptions.of(Preallocation.FALLOC, Subclusters.ON, 65536)))
                .isEqualTo(
                        "qemu-img convert -p -f qcow2 -O qcow2 -o extended_l2=on,cluster_size=64k,preallocation=falloc "
                                + "-S 64k /srv/cloud.qcow2 /s/vm-1.qcow2");
        assertThat(convert(
                        Path.of("/s/vm-1.vmdk"),
                        "vmdk",
                        TargetState.NEW,
                        ImageOptions.of(Preallocation.FULL, Subclusters.AUTO, null)))
                .isEqualTo("qemu-img convert -p -f qcow2 -O vmdk -S 64k /srv/cloud.qcow2 /s/vm-1.vmdk");
    }

    @Test
    void aTargetKnownToReadZerosIsNotCreatedAndSkipsZeroRuns() {
        assertThat(convert(
                        Path.of("/dev/vg/vm-1-disk-0"),
                        "raw",
                        TargetState.ZEROED,
                        ImageOptions.of(Preallocation.FULL, Subclusters.ON, null)))
                .isEqualTo(
                        "qemu-img convert -p -n --target-is-zero -f qcow2 -O raw -S 64k /srv/cloud.qcow2 /dev/vg/vm-1-disk-0");
    }

    @Test
    void aTargetThatMayHoldOldDataGetsEveryZeroWritten() {
        String argv = convert(Path.of("/dev/vg/vm-1-disk-0"), "raw", TargetState.UNKNOWN, ImageOptions.DEFAULTS);
        assertThat(argv).isEqualTo("qemu-img convert -p -n -f qcow2 -O raw -S 0 /srv/cloud.qcow2 /dev/vg/vm-1-disk-0");
        assertThat(argv).doesNotContain("--target-is-zero").doesNotContain("-o ");
    }

    @Test
    void measureCompareCheck() {
        assertThat(String.join(" ", cmds.measure(SRC, "qcow2", VolumeFormat.RAW, ImageOptions.DEFAULTS)))
                .isEqualTo("qemu-img measure --output=json -f qcow2 -O raw /srv/cloud.qcow2");
        assertThat(String.join(
                        " ",
                        cmds.measure(SRC, "vmdk", VolumeFormat.QCOW2, ImageOptions.of(null, Subclusters.ON, null))))
                .isEqualTo(
                        "qemu-img measure --output=json -f vmdk -O qcow2 -o extended_l2=on,cluster_size=128k /srv/cloud.qcow2");
        assertThat(cmds.compare(SRC, "qcow2", Path.of("/b.raw"), "raw"))
                .containsExactly("qemu-img", "compare", "-f", "qcow2", "-F", "raw", "/srv/cloud.qcow2", "/b.raw");
        assertThat(cmds.check(SRC, "qcow2")).containsExactly("qemu-img", "check", "-f", "qcow2", "/srv/cloud.qcow2");
    }

    @Test
    void progressLines() {
        assertThat(QemuImgProgress.percent("    (12.34/100%)")).hasValue(12.34);
        assertThat(QemuImgProgress.percent("    (100.00/100%)")).hasValue(100.0);
        assertThat(QemuImgProgress.percent("(0.00/100%)")).hasValue(0.0);
        assertThat(QemuImgProgress.percent("qemu-img: error")).isEmpty();
        assertThat(QemuImgProgress.percent("    (512.00/100%)")).isEmpty();
        assertThat(QemuImgProgress.bytesDone(25.0, 4L << 30)).isEqualTo(1L << 30);
    }
}
