package dev.vsm.plugin.dir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.SnapshotLayer;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SPI's snapshot contract (pve's plugin API 15) on {@link DirStorage} with the real qemu-img:
 * snapshot info, resize of a layer, rename of a snapshot, rollback blockers, activation; with and
 * without {@code snapshot-as-volume-chain}.
 */
class DirSnapshotContractTest {
    private static final long MIB = 1024 * 1024;

    @TempDir
    Path root;

    @Test
    void aChainsLayersAndWhatCanBeDoneWithThem() {
        TestStorage t = TestStorage.in(root, Map.of("snapshot-as-volume-chain", true));
        VolumeName volume =
                t.storage.parseVolname(t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, 1024)));
        t.storage.volumeSnapshot(volume, "s1");
        t.storage.volumeSnapshot(volume, "s2");

        List<SnapshotLayer> layers = t.storage.volumeSnapshotInfo(volume);
        assertThat(layers).extracting(SnapshotLayer::name).containsExactly("current", "s2", "s1");
        assertThat(layers.get(0).parent()).isEqualTo("s2");
        assertThat(layers.get(0).child()).isNull();
        assertThat(layers.get(2).child()).isEqualTo("s2");
        assertThat(layers.get(2).path()).isEqualTo(root.resolve("images/100/snap-s1-vm-100-disk-0.qcow2"));
        assertThat(layers.get(0).volid()).isEqualTo("local:100/vm-100-disk-0.qcow2");

        assertThat(t.storage.rollbackBlockers(volume, "s1")).containsExactly("s2");
        assertThat(t.storage.rollbackBlockers(volume, "s2")).isEmpty();

        t.storage.volumeResize(volume, 2 * MIB, "s1");
        assertThat(TestStorage.qemuInfo(root.resolve("images/100/snap-s1-vm-100-disk-0.qcow2"))
                        .get("virtual-size")
                        .asLong())
                .isEqualTo(2 * MIB);

        t.storage.renameSnapshot(volume, "s2", "b2");
        assertThat(t.storage.volumeSnapshots(volume)).containsExactly("s1", "b2");
        assertThat(TestStorage.qemuInfo(root.resolve("images/100/vm-100-disk-0.qcow2"))
                        .get("backing-filename")
                        .asText())
                .isEqualTo("snap-b2-vm-100-disk-0.qcow2");

        t.storage.activateVolume(volume, "b2");
        assertThatThrownBy(() -> t.storage.activateVolume(volume, "s2"))
                .isInstanceOf(StorageException.class)
                .hasMessage("snapshot 's2' does not exist on '100/vm-100-disk-0.qcow2'");
    }

    @Test
    void internalSnapshotsHaveTimesAndNoLayersOfTheirOwn() {
        TestStorage t = TestStorage.in(root);
        VolumeName volume =
                t.storage.parseVolname(t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, 1024)));
        t.storage.volumeSnapshot(volume, "a1");
        List<SnapshotLayer> layers = t.storage.volumeSnapshotInfo(volume);
        assertThat(layers).extracting(SnapshotLayer::name).containsExactly("a1");
        assertThat(layers.get(0).ctime()).isNotNull();
        assertThat(layers.get(0).path()).isNull();
        assertThat(t.storage.rollbackBlockers(volume, "a1")).isEmpty();
        assertThatThrownBy(() -> t.storage.volumeResize(volume, 2 * MIB, "a1"))
                .hasMessageContaining("resizing a snapshot is not supported");
        assertThatThrownBy(() -> t.storage.renameSnapshot(volume, "a1", "b1"))
                .hasMessageContaining("renaming a snapshot is not supported");
    }
}
