package dev.vsm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.SnapshotLayer;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pve's plugin API 15 through the facade on a dir storage with {@code snapshot-as-volume-chain}
 * and the real qemu-img: snapshot info, the resize of a snapshot's layer, rename of a snapshot,
 * rollback blockers and activation.
 */
class ChainContractApiTest {
    @TempDir
    Path dir;

    private VsmStorage vsm() {
        return VsmStorage.builder()
                .configText("""
                        storages:
                          chain:
                            type: dir
                            path: %s
                            content: [images]
                            snapshot-as-volume-chain: true
                        """.formatted(dir.resolve("store")))
                .lockDirectory(dir.resolve("locks"))
                .output(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), System.err)
                .build();
    }

    @Test
    void aChainsLayersThroughTheFacade() {
        try (VsmStorage vsm = vsm()) {
            VolumeId volid = vsm.alloc(NewVolume.of("chain", 100, 1024).format(VolumeFormat.QCOW2));
            vsm.snapshot(Snapshot.of(volid, "s1"));
            vsm.snapshot(Snapshot.of(volid, "s2"));

            List<SnapshotLayer> layers = vsm.snapshotInfo(volid);
            assertThat(layers).extracting(SnapshotLayer::name).containsExactly("current", "s2", "s1");
            assertThat(layers).extracting(SnapshotLayer::order).containsExactly(0, 1, 2);
            assertThat(layers.get(1).parent()).isEqualTo("s1");
            assertThat(layers.get(1).child()).isEqualTo("current");
            assertThat(layers.get(2).volid()).isEqualTo("chain:100/snap-s1-vm-100-disk-0.qcow2");
            assertThat(layers.get(2).virtualSize()).isEqualTo(1024L * 1024);
            assertThat(layers.get(2).ctime()).isNotNull();
            assertThat(vsm.info(volid).layers()).isEqualTo(layers);

            assertThat(vsm.rollbackBlockers(Snapshot.of(volid, "s1"))).containsExactly("s2");
            assertThat(vsm.rollbackBlockers(Snapshot.of(volid, "s2"))).isEmpty();

            assertThat(vsm.resize(Resize.to(volid, 2L * 1024 * 1024).snapshot("s1")))
                    .isEqualTo(2L * 1024 * 1024);
            assertThat(vsm.snapshotInfo(volid).get(2).virtualSize()).isEqualTo(2L * 1024 * 1024);

            vsm.renameSnapshot(SnapshotRename.of(volid, "s1", "first"));
            assertThat(vsm.info(volid).snapshots()).containsExactly("first", "s2");
            assertThat(vsm.snapshotInfo(volid).get(1).parent()).isEqualTo("first");

            vsm.activate(volid);
            vsm.activate(Snapshot.of(volid, "first"));
            vsm.deactivate(Snapshot.of(volid, "first"));
            vsm.deactivate(volid);

            Path store = dir.resolve("store/images/100");
            assertThat(Files.exists(store.resolve("snap-first-vm-100-disk-0.qcow2")))
                    .isTrue();
            badInput(
                    () -> vsm.renameSnapshot(SnapshotRename.of(volid, "s2", "first")),
                    "target snapshot 'first' already exists");
            badInput(
                    () -> vsm.rollbackBlockers(Snapshot.of(volid, "nope")),
                    "can't rollback, snapshot 'nope' does not exist on '100/vm-100-disk-0.qcow2'");
            badInput(
                    () -> vsm.activate(Snapshot.of(volid, "nope")),
                    "snapshot 'nope' does not exist on '100/vm-100-disk-0.qcow2'");
            badInput(
                    () -> vsm.resize(Resize.to(volid, 1024).snapshot("s2")),
                    "shrinking snapshot 's2' of 'chain:100/vm-100-disk-0.qcow2' from 1048576 to 1024 bytes is not supported");
        }
    }

    private static void badInput(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call)
                .isInstanceOf(StorageException.class)
                .hasFieldOrPropertyWithValue("kind", StorageException.Kind.BAD_INPUT)
                .hasMessage(message);
    }
}
