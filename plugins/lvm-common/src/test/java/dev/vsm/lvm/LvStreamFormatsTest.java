package dev.vsm.lvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import org.junit.jupiter.api.Test;

/** LVM-backed volumes stream as raw+size only, and without snapshots. */
class LvStreamFormatsTest {
    private static VolumeName volume(VolumeFormat format) {
        return VolumeName.builder("vm-100-disk-0", ContentType.IMAGES, "vm-100-disk-0", format)
                .vmid(100)
                .build();
    }

    @Test
    void rawVolumesExportRawSizeWithoutSnapshots() {
        assertThat(LvStreamFormats.export(volume(VolumeFormat.RAW), false)).containsExactly(StreamFormat.RAW_SIZE);
        assertThat(LvStreamFormats.export(volume(VolumeFormat.RAW), true)).isEmpty();
        assertThat(LvStreamFormats.export(volume(VolumeFormat.QCOW2), false)).isEmpty();
    }

    @Test
    void rawVolumesImportRawSizeWithoutSnapshots() {
        assertThat(LvStreamFormats.imports(VolumeFormat.RAW, false)).containsExactly(StreamFormat.RAW_SIZE);
        assertThat(LvStreamFormats.imports(VolumeFormat.RAW, true)).isEmpty();
        assertThat(LvStreamFormats.imports(VolumeFormat.QCOW2, false)).isEmpty();
        assertThat(LvStreamFormats.imports(VolumeFormat.VMDK, false)).isEmpty();
    }
}
