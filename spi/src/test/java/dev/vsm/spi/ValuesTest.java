package dev.vsm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The SPI's values: builders keep what they are given, types parse their text with errors that name the valid values. */
class ValuesTest {
    @Test
    void formatsAndPreallocationModesParseTheirTextAndNameTheValidOnesOtherwise() {
        assertThat(VolumeFormat.parse("qcow2")).isEqualTo(VolumeFormat.QCOW2).hasToString("qcow2");
        assertThatThrownBy(() -> VolumeFormat.parse("qcow3"))
                .isInstanceOf(StorageException.class)
                .hasMessage("unknown volume format 'qcow3' (use raw, qcow2, vmdk or subvol)")
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
        assertThat(Preallocation.parse("falloc")).isEqualTo(Preallocation.FALLOC);
        assertThat(Preallocation.FALLOC.allocatesWholeSize()).isTrue();
        assertThat(Preallocation.FALLOC.writesEveryByte()).isFalse();
        assertThat(Preallocation.FULL.writesEveryByte()).isTrue();
        assertThat(Preallocation.METADATA.allocatesWholeSize()).isFalse();
        assertThatThrownBy(() -> Preallocation.parse("sparse"))
                .hasMessage("unknown preallocation mode 'sparse' (use off, metadata, falloc or full)");
    }

    @Test
    void formatsAreTypedWhereTheyAreVsmsAndTextElsewhere() {
        VolumeName disk = VolumeName.builder(
                        "100/vm-100-disk-0.qcow2", ContentType.IMAGES, "vm-100-disk-0.qcow2", VolumeFormat.QCOW2)
                .build();
        assertThat(disk.format()).isEqualTo("qcow2");
        assertThat(disk.volumeFormat()).contains(VolumeFormat.QCOW2);
        assertThat(disk.hasFormat(VolumeFormat.QCOW2)).isTrue();
        assertThat(disk.hasFormat(VolumeFormat.RAW)).isFalse();
        VolumeName ova = VolumeName.builder("import/a.ova/disk.vmdk", ContentType.IMPORT, "a.ova", "ova+vmdk")
                .build();
        assertThat(ova.volumeFormat()).isEmpty();
        assertThat(ova.hasFormat(VolumeFormat.VMDK)).isFalse();
        assertThat(ImageInfo.builder(VolumeFormat.RAW).build())
                .isEqualTo(ImageInfo.builder("raw").build());
        assertThat(ImageInfo.builder("vdi").build().hasFormat(VolumeFormat.RAW)).isFalse();
        assertThat(VolumeInfo.builder("s:1", VolumeFormat.RAW, ContentType.IMAGES)
                        .build())
                .isEqualTo(VolumeInfo.builder("s:1", "raw", ContentType.IMAGES).build())
                .matches(v -> v.hasFormat(VolumeFormat.RAW));
        assertThat(VolumeFormat.RAW.is("raw")).isTrue();
        assertThat(VolumeFormat.RAW.is(null)).isFalse();
        assertThat(StreamFormat.RAW_SIZE.dataFormat()).isEqualTo(VolumeFormat.RAW);
    }

    @Test
    void buildersKeepEveryFieldAndValuesCompareByThem() {
        VolumeInfo info = VolumeInfo.builder("s:100/vm-100-disk-0.qcow2", "qcow2", ContentType.IMAGES)
                .size(4096)
                .approximate(true)
                .used(512L)
                .vmid(100)
                .ctime(7L)
                .parent("../100/base-100-disk-0.qcow2")
                .build();
        assertThat(List.of(
                        info.volid(),
                        info.format(),
                        info.content(),
                        info.size(),
                        info.approximate(),
                        info.used(),
                        info.vmid(),
                        info.ctime(),
                        info.parent()))
                .containsExactly(
                        "s:100/vm-100-disk-0.qcow2",
                        "qcow2",
                        ContentType.IMAGES,
                        4096L,
                        true,
                        512L,
                        100,
                        7L,
                        "../100/base-100-disk-0.qcow2");
        assertThat(info.backup()).isNull();
        assertThat(info.withContent(ContentType.ROOTDIR))
                .isEqualTo(info.toBuilder().build().withContent(ContentType.ROOTDIR))
                .isNotEqualTo(info)
                .extracting(VolumeInfo::content)
                .isEqualTo(ContentType.ROOTDIR);

        ImageInfo image = ImageInfo.builder("qcow2")
                .virtualSize(1L << 30)
                .actualSize(1L << 20)
                .backingFile("b")
                .backingFormat("raw")
                .clusterSize(65536)
                .extendedL2(true)
                .ctime(9L)
                .build();
        assertThat(image.toBuilder().build()).isEqualTo(image).hasSameHashCodeAs(image);
        assertThat(image.toBuilder().ctime(10L).build()).isNotEqualTo(image);
        assertThat(image.l2CacheBytes()).isEqualTo((1L << 30) / 65536 * 16);

        VolumeName clone = VolumeName.builder(
                        "100/base-100-disk-0.raw/101/vm-101-disk-0.qcow2",
                        ContentType.IMAGES,
                        "vm-101-disk-0.qcow2",
                        "qcow2")
                .vmid(101)
                .base("base-100-disk-0.raw", 100)
                .build();
        assertThat(clone.isLinkedClone()).isTrue();
        assertThat(clone.isBase()).isFalse();
        assertThat(clone.baseVmid()).isEqualTo(100);
        assertThatThrownBy(() -> VolumeName.builder("x", ContentType.IMAGES, "x", (String) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("format");

        StorageStatus status = StorageStatus.of(10, 4, 6, true)
                .withMetadata(StorageStatus.MetadataUsage.of(1, 2))
                .withWarnings(List.of("nearly full"));
        assertThat(status)
                .isEqualTo(StorageStatus.of(10, 4, 6, true)
                        .withWarnings(List.of("nearly full"))
                        .withMetadata(StorageStatus.MetadataUsage.of(1, 2)));
        assertThat(status.warnings()).containsExactly("nearly full");
    }
}
