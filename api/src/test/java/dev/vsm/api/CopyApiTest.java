package dev.vsm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code vsm copy} and pve's copy to a named volume through the facade, with the real qemu-img. */
class CopyApiTest {
    @TempDir
    Path dir;

    private VsmStorage vsm() {
        return VsmStorage.builder()
                .configText("""
                        storages:
                          aa:
                            type: dir
                            path: %s
                            content: [images]
                          bb:
                            type: dir
                            path: %s
                            content: [images]
                        """.formatted(dir.resolve("a"), dir.resolve("b")))
                .lockDirectory(dir.resolve("locks"))
                .output(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), System.err)
                .build();
    }

    @Test
    void aVolumeIsCopiedToAStorageAndToANamedVolume() {
        try (VsmStorage vsm = vsm()) {
            VolumeId disk = vsm.alloc(NewVolume.of("aa", 100, 1024).format(VolumeFormat.RAW));
            VolumeId copied = vsm.copy(CopyVolume.of(disk, "bb").vmid(101).format(VolumeFormat.QCOW2));
            assertThat(copied.toString()).isEqualTo("bb:101/vm-101-disk-0.qcow2");
            assertThat(vsm.info(copied).size()).isEqualTo(1024L * 1024);

            VolumeId named = VolumeId.parse("aa:102/vm-102-disk-7.qcow2");
            assertThat(vsm.copy(CopyVolume.to(disk, named))).isEqualTo(named);
            assertThat(vsm.info(named).format()).isEqualTo("qcow2");

            assertThatThrownBy(() -> vsm.copy(CopyVolume.to(disk, named))).isInstanceOf(StorageException.class);
            assertThatThrownBy(() -> vsm.copy(CopyVolume.to(disk, VolumeId.parse("aa:iso/x.iso"))))
                    .hasMessageContaining("is not a guest's image");
            assertThatThrownBy(() -> CopyVolume.to(disk, named).vmid(103)).isInstanceOf(IllegalStateException.class);
        }
    }
}
