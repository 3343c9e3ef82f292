package dev.vsm.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.Feature;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every call of the facade on a real dir storage with the real qemu-img, and the refusals it shares with the command line. */
class VsmStorageTest {
    private static final long MIB_KIB = 1024;

    @TempDir
    Path dir;

    private VsmStorage vsm() {
        return VsmStorage.builder()
                .configText("""
                        storages:
                          images:
                            type: dir
                            path: %s
                            content: [images, import]
                          off:
                            type: dir
                            path: %s
                            disable: true
                        """.formatted(dir.resolve("images"), dir.resolve("off")))
                .lockDirectory(dir.resolve("locks"))
                .output(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), System.err)
                .build();
    }

    @Test
    void aVolumeFromAllocationToFree() throws IOException {
        try (VsmStorage vsm = vsm()) {
            assertThat(vsm.status(StatusQuery.all()))
                    .extracting(StorageState::storage, StorageState::enabled, StorageState::active)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("images", true, true),
                            org.assertj.core.groups.Tuple.tuple("off", false, false));
            assertThat(vsm.status(StatusQuery.all().content(Set.of(ContentType.IMAGES))))
                    .extracting(StorageState::storage)
                    .containsExactly("images");

            // the name's ending sets the format, as for vsm alloc
            VolumeId disk = vsm.alloc(NewVolume.of("images", 100, 4 * MIB_KIB).name("vm-100-disk-0.qcow2"));
            assertThat(disk).hasToString("images:100/vm-100-disk-0.qcow2");
            assertThat(vsm.list(ListQuery.of("images").vmid(100)))
                    .extracting(VolumeInfo::volid)
                    .containsExactly(disk.toString());
            assertThat(vsm.path(disk)).isEqualTo(dir.resolve("images/images/100/vm-100-disk-0.qcow2"));

            assertThat(vsm.resize(Resize.by(disk, 1 << 20))).isEqualTo(5L << 20);
            vsm.snapshot(Snapshot.of(disk, "before"));
            VolumeDetails info = vsm.info(disk);
            assertThat(info.format()).isEqualTo("qcow2");
            assertThat(info.size()).isEqualTo(5L << 20);
            assertThat(info.snapshots()).containsExactly("before");
            assertThat(info.features()).contains(Feature.SNAPSHOT);
            assertThat(info.vmid()).isEqualTo(100);
            vsm.rollback(Snapshot.of(disk, "before"));
            vsm.deleteSnapshot(Snapshot.of(disk, "before"));
            assertThat(vsm.info(disk).snapshots()).isEmpty();

            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            assertThat(vsm.export(
                            Export.of(disk, StreamFormat.QCOW2_SIZE, stream).withSnapshots(true)))
                    .isPositive();
            Path file = dir.resolve("copy.qcow2");
            try (OutputStream out = Files.newOutputStream(file)) {
                out.write(stream.toByteArray(), 8, stream.size() - 8);
            }
            VolumeId imported =
                    vsm.importImage(ImportImage.of("images", 101, file).format(VolumeFormat.RAW));
            assertThat(imported).hasToString("images:101/vm-101-disk-0.raw");
            assertThat(vsm.info(imported).size()).isEqualTo(5L << 20);

            VolumeId base = vsm.createBase(CreateBase.of(disk));
            VolumeId clone = vsm.clone(Clone.of(base, 102));
            assertThat(vsm.info(clone).backing()).isEqualTo(base);
            assertThat(vsm.info(base).base()).isTrue();
            assertThatThrownBy(() -> vsm.free(base))
                    .isInstanceOf(StorageException.class)
                    .hasMessageContaining("still in use by linked clones");
            vsm.free(clone);
            vsm.free(base);
            vsm.free(imported);
            assertThat(vsm.list(ListQuery.of("images").content(ContentType.IMAGES)))
                    .isEmpty();
        }
    }

    @Test
    void whatTheCommandLineRefusesIsRefused() {
        try (VsmStorage vsm = vsm()) {
            badInput(
                    () -> vsm.alloc(NewVolume.of("images", 7, MIB_KIB)),
                    "vmid: value does not look like a valid VM ID: '7' (expected 100 to 999999999)");
            badInput(() -> vsm.alloc(NewVolume.of("images", 100, 0)), "size: must be greater than 0, got 0 KiB");
            badInput(
                    () -> vsm.alloc(NewVolume.of("images", 100, MIB_KIB)
                            .name("vm-100-disk-0.raw")
                            .format(VolumeFormat.QCOW2)),
                    "format: different storage formats (qcow2 != raw)");
            badInput(
                    () -> vsm.alloc(NewVolume.of("images", 100, MIB_KIB).name("vm-101-disk-0.raw")),
                    "illegal name 'vm-101-disk-0.raw' - should be 'vm-100-*'");
            badInput(() -> vsm.alloc(NewVolume.of("off", 100, MIB_KIB)), "storage 'off' is disabled");
            badInput(
                    () -> vsm.status(StatusQuery.all().target("no node!")),
                    "target: invalid format - value does not look like a valid node name: 'no node!'");
            badInput(
                    () -> vsm.status(StatusQuery.all().storage("off").content(Set.of(ContentType.IMAGES))),
                    "storage: No such storage. ('off' is disabled here)");
            badInput(
                    () -> vsm.clone(Clone.of(VolumeId.parse("images:100/base-100-disk-0.raw"), 99)),
                    "vmid: value does not look like a valid VM ID: '99' (expected 100 to 999999999)");
        }
        assertThat(dir.resolve("images/images")).doesNotExist();
    }

    private static void badInput(ThrowingCallable call, String message) {
        assertThatThrownBy(call)
                .isInstanceOf(StorageException.class)
                .hasFieldOrPropertyWithValue("kind", StorageException.Kind.BAD_INPUT)
                .hasMessage(message);
    }
}
