package dev.vsm.qemu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.ImageOptions;
import dev.vsm.spi.ImageOptions.Subclusters;
import dev.vsm.spi.Preallocation;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QemuImgCommandsTest {
    private static final Path IMG = Path.of("/var/lib/vz/images/100/vm-100-disk-0.qcow2");
    private final QemuImgCommands cmds = new QemuImgCommands("qemu-img", true);

    private static ImageOptions prealloc(String mode) {
        return ImageOptions.of(mode == null ? null : Preallocation.parse(mode), Subclusters.AUTO, null);
    }

    @Test
    void createsLikePveWithEachFormatsDefault() {
        assertThat(String.join(
                        " ",
                        cmds.create(
                                Path.of("/s/images/100/vm-100-disk-0.raw"),
                                VolumeFormat.RAW,
                                33554432,
                                ImageOptions.DEFAULTS)))
                .isEqualTo("qemu-img create -o preallocation=off -f raw /s/images/100/vm-100-disk-0.raw 33554432K");
        assertThat(String.join(" ", cmds.create(IMG, VolumeFormat.QCOW2, 33554432, ImageOptions.DEFAULTS)))
                .isEqualTo("qemu-img create -o preallocation=metadata -f qcow2 " + IMG + " 33554432K");
        assertThat(String.join(" ", cmds.create(Path.of("/s/x.vmdk"), VolumeFormat.VMDK, 1024, prealloc("full"))))
                .isEqualTo("qemu-img create -f vmdk /s/x.vmdk 1024K");
    }

    @ParameterizedTest
    @CsvSource({
        "qcow2, off, off", "qcow2, metadata, metadata", "qcow2, falloc, falloc", "qcow2, full, full",
        "raw, off, off", "raw, metadata, off", "raw, falloc, falloc", "raw, full, full",
    })
    void preallocationPerFormat(String format, String configured, String expected) {
        assertThat(cmds.create(Path.of("/x"), VolumeFormat.parse(format), 1, prealloc(configured)))
                .contains("preallocation=" + expected);
        assertThat(cmds.resize(Path.of("/x"), format, 1024, prealloc(configured)))
                .contains("--preallocation=" + expected);
    }

    @Test
    void aModeTheFormatLacksIsRefusedNamingBoth() {
        assertThatThrownBy(() -> PreallocationRules.parse(VolumeFormat.VMDK, "full"))
                .isInstanceOf(StorageException.class)
                .hasMessage("preallocation mode 'full' not supported by format 'vmdk'")
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
        assertThatThrownBy(() -> PreallocationRules.parse(VolumeFormat.QCOW2, "sparse"))
                .hasMessage("preallocation mode 'sparse' not supported by format 'qcow2'");
    }

    @Test
    void backedImagesGetSubclustersUnderAutoWithQcow2sPreallocationWhateverTheBase() {
        Path clone = Path.of("/var/lib/vz/images/101/vm-101-disk-0.qcow2");
        assertThat(String.join(
                        " ", cmds.createBacked(clone, "../100/base-100-disk-0.qcow2", "qcow2", ImageOptions.DEFAULTS)))
                .isEqualTo("qemu-img create -F qcow2 -b ../100/base-100-disk-0.qcow2 -f qcow2 " + clone
                        + " -o extended_l2=on,cluster_size=128k,preallocation=metadata");
        assertThat(String.join(
                        " ", cmds.createBacked(clone, "../100/base-100-disk-0.raw", "raw", ImageOptions.DEFAULTS)))
                .endsWith("-o extended_l2=on,cluster_size=128k,preallocation=metadata");
        assertThat(String.join(
                        " ", cmds.createBacked(clone, "../100/base-100-disk-0.vmdk", "vmdk", ImageOptions.DEFAULTS)))
                .endsWith("-o extended_l2=on,cluster_size=128k,preallocation=metadata");
        ImageOptions off = ImageOptions.of(Preallocation.OFF, Subclusters.AUTO, null);
        assertThat(String.join(" ", cmds.createBacked(clone, "../100/base-100-disk-0.qcow2", "qcow2", off)))
                .endsWith("-o extended_l2=on,cluster_size=128k,preallocation=off");
    }

    @Test
    void subclustersOnGivesEveryQcow2ThemAndOffNone() {
        ImageOptions on = ImageOptions.of(null, Subclusters.ON, null);
        assertThat(cmds.create(IMG, VolumeFormat.QCOW2, 1, on))
                .contains("extended_l2=on,cluster_size=128k,preallocation=metadata");
        assertThat(cmds.create(Path.of("/x.raw"), VolumeFormat.RAW, 1, on))
                .doesNotContain("extended_l2=on,cluster_size=128k");
        ImageOptions off = ImageOptions.of(Preallocation.METADATA, Subclusters.OFF, null);
        assertThat(cmds.createBacked(IMG, "b", "qcow2", off)).doesNotContain("-o");
        ImageOptions offSized = ImageOptions.of(null, Subclusters.OFF, 2 * 1024 * 1024);
        assertThat(cmds.create(IMG, VolumeFormat.QCOW2, 1, offSized))
                .contains("cluster_size=2M,preallocation=metadata");
    }

    @Test
    void clusterSizeOverridesAndIsCheckedAgainstSubclusters() {
        ImageOptions big = ImageOptions.of(null, Subclusters.AUTO, 256 * 1024);
        assertThat(cmds.createBacked(IMG, "b", "qcow2", big))
                .contains("extended_l2=on,cluster_size=256k,preallocation=metadata");
        ImageOptions tiny = ImageOptions.of(null, Subclusters.ON, 4096);
        assertThatThrownBy(() -> cmds.create(IMG, VolumeFormat.QCOW2, 1, tiny))
                .hasMessageContaining("qcow2-cluster-size 4k is too small for subclusters");
    }

    @Test
    void withoutExtendedL2SupportNothingAsksForIt() {
        QemuImgCommands old = new QemuImgCommands("qemu-img", false);
        assertThat(old.createBacked(IMG, "b", "qcow2", ImageOptions.DEFAULTS)).doesNotContain("-o");
        assertThat(old.usesSubclusters(ImageOptions.of(null, Subclusters.ON, null), true))
                .isFalse();
    }

    /** What the dir plugin's free-space check asks: the mode create / createBacked pass, or null. */
    @Test
    void preallocationIsTheModeTheCreateCommandsPass() {
        assertThat(cmds.preallocation("raw", prealloc("full"), false)).isEqualTo(Preallocation.FULL);
        assertThat(cmds.preallocation("raw", prealloc("metadata"), false)).isEqualTo(Preallocation.OFF);
        assertThat(cmds.preallocation("vmdk", prealloc("full"), false)).isNull();
        assertThat(cmds.preallocation("raw", prealloc("falloc"), true)).isEqualTo(Preallocation.FALLOC);
        assertThat(cmds.createBacked(IMG, "b", "raw", prealloc("falloc")))
                .contains("extended_l2=on,cluster_size=128k,preallocation=falloc");
        ImageOptions noSubclusters = ImageOptions.of(Preallocation.FULL, Subclusters.OFF, null);
        assertThat(cmds.preallocation("qcow2", noSubclusters, true)).isNull();
        assertThat(cmds.preallocation("qcow2", noSubclusters, false)).isEqualTo(Preallocation.FULL);
        assertThat(new QemuImgCommands("qemu-img", false).preallocation("qcow2", prealloc("full"), true))
                .isNull();
    }

    @Test
    void infoArgv() {
        assertThat(cmds.info(IMG, "qcow2"))
                .containsExactly("qemu-img", "info", "--output=json", IMG.toString(), "-f", "qcow2");
        assertThat(cmds.info(IMG, null)).containsExactly("qemu-img", "info", "--output=json", IMG.toString());
    }

    @Test
    void parsesQemuImgInfoJson() {
        String json = """
                {"virtual-size": 1073741824, "filename": "b.qcow2", "cluster-size": 131072, "format": "qcow2",
                 "actual-size": 397312, "backing-filename": "../100/base-100-disk-0.raw", "backing-filename-format": "raw",
                 "format-specific": {"type": "qcow2", "data": {"compat": "1.1", "extended-l2": true}}}
                """;
        var info = QemuImgRunner.parseInfo(json, 42L);
        assertThat(info.virtualSize()).isEqualTo(1073741824L);
        assertThat(info.clusterSize()).isEqualTo(131072);
        assertThat(info.extendedL2()).isTrue();
        assertThat(info.backingFile()).isEqualTo("../100/base-100-disk-0.raw");
        assertThat(info.l2CacheBytes()).isEqualTo(8192L * 16);
        var vmdk = QemuImgRunner.parseInfo(
                "{\"virtual-size\": 1048576, \"format\": \"vmdk\", \"cluster-size\": 65536}", null);
        assertThat(vmdk.clusterSize()).isNull();
        assertThat(vmdk.l2CacheBytes()).isNull();
    }

    @Test
    void imageOptsOpenTheImageWithAnL2CacheThatMapsAllOfIt() {
        var tib = dev.vsm.spi.ImageInfo.builder("qcow2")
                .virtualSize(1L << 40)
                .clusterSize(65536)
                .build();
        assertThat(QemuImgCommands.imageOpts(Path.of("/s/images/100/vm-100-disk-0.qcow2"), false, tib))
                .isEqualTo(
                        "driver=qcow2,file.driver=file,file.filename=/s/images/100/vm-100-disk-0.qcow2,l2-cache-size=134217728");
        var sub = dev.vsm.spi.ImageInfo.builder("qcow2")
                .virtualSize(1L << 40)
                .clusterSize(131072)
                .extendedL2(true)
                .build();
        assertThat(QemuImgCommands.imageOpts(Path.of("/dev/vg,1/lv"), true, sub))
                .isEqualTo("driver=qcow2,file.driver=host_device,file.filename=/dev/vg,,1/lv,l2-cache-size=134217728");
        var raw = dev.vsm.spi.ImageInfo.builder("raw").virtualSize(1L << 40).build();
        assertThat(QemuImgCommands.imageOpts(Path.of("/x.raw"), false, raw)).isNull();
    }

    @Test
    void theWatchdogGrowsWithTheImageOnlyForAModeThatWritesEveryByte() {
        long image = 20L * 1024 * 1024 * 1024;
        assertThat(QemuImgRunner.changeTimeout(Preallocation.FULL, image, null))
                .isEqualTo(Duration.ofSeconds(600 + 1024));
        assertThat(QemuImgRunner.changeTimeout(Preallocation.FALLOC, image, null))
                .isEqualTo(Duration.ofSeconds(600));
        assertThat(QemuImgRunner.changeTimeout(null, image, null)).isEqualTo(Duration.ofSeconds(600));
        assertThat(QemuImgRunner.changeTimeout(Preallocation.FULL, image, "0")).isNull();
    }
}
