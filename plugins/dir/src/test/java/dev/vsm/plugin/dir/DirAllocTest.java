package dev.vsm.plugin.dir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Allocation with the real qemu-img (pve's alloc_image). */
class DirAllocTest {
    private static final long MIB_IN_KIB = 1024;

    @TempDir
    Path root;

    @ParameterizedTest
    @ValueSource(strings = {"raw", "qcow2", "vmdk"})
    void allocatesImagesOfEachFormat(String format) {
        TestStorage t = TestStorage.in(root);
        String volname = t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.parse(format), 4 * MIB_IN_KIB));

        assertThat(volname).isEqualTo("100/vm-100-disk-0." + format);
        Path file = root.resolve("images/100/vm-100-disk-0." + format);
        JsonNode info = TestStorage.qemuInfo(file);
        assertThat(info.get("format").asText()).isEqualTo(format);
        assertThat(info.get("virtual-size").asLong()).isEqualTo(4L * 1024 * 1024);
        assertThat(t.storage.path(t.storage.parseVolname(volname))).isEqualTo(file);
    }

    @Test
    void allocatesSubvolDirectories() throws Exception {
        TestStorage t = TestStorage.in(root);
        String volname = t.storage.allocImage(AllocRequest.of(101, null, VolumeFormat.SUBVOL, 0));

        assertThat(volname).isEqualTo("101/subvol-101-disk-0.subvol");
        Path dir = root.resolve("images/101/subvol-101-disk-0.subvol");
        assertThat(dir).isDirectory();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
                .startsWith("rwx");
    }

    @Test
    void subvolsHaveNoSize() {
        TestStorage t = TestStorage.in(root);
        assertThatThrownBy(() -> t.storage.allocImage(AllocRequest.of(101, null, VolumeFormat.SUBVOL, 1024)))
                .hasMessage("storage does not support subvol quotas");
        assertThat(root).isEmptyDirectory();
    }

    @Test
    void allFormatsShareOneNumberSpace() {
        TestStorage t = TestStorage.in(root);
        List<String> names = List.of(
                t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, MIB_IN_KIB)),
                t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB)),
                t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.SUBVOL, 0)),
                t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.VMDK, MIB_IN_KIB)),
                t.storage.allocImage(AllocRequest.of(200, null, VolumeFormat.RAW, MIB_IN_KIB)));
        assertThat(names)
                .containsExactly(
                        "100/vm-100-disk-0.raw",
                        "100/vm-100-disk-1.qcow2",
                        "100/subvol-100-disk-2.subvol",
                        "100/vm-100-disk-3.vmdk",
                        "200/vm-200-disk-0.raw");
    }

    @Test
    void freedNumbersAreReused() {
        TestStorage t = TestStorage.in(root);
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, MIB_IN_KIB));
        String second = t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, MIB_IN_KIB));
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, MIB_IN_KIB));
        t.storage.freeImage(t.storage.parseVolname(second));
        assertThat(t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB)))
                .isEqualTo("100/vm-100-disk-1.qcow2");
    }

    @Test
    void allocatesUnderAGivenName() {
        TestStorage t = TestStorage.in(root);
        assertThat(t.storage.allocImage(AllocRequest.of(100, "vm-100-disk-7.qcow2", VolumeFormat.QCOW2, MIB_IN_KIB)))
                .isEqualTo("100/vm-100-disk-7.qcow2");
        assertThat(t.storage.allocImage(AllocRequest.of(100, "data.raw", VolumeFormat.RAW, MIB_IN_KIB)))
                .isEqualTo("100/data.raw");
        assertThat(root.resolve("images/100/data.raw")).isRegularFile();
    }

    @Test
    void theNameMustEndInTheFormat() {
        TestStorage t = TestStorage.in(root);
        assertThatThrownBy(() ->
                        t.storage.allocImage(AllocRequest.of(100, "vm-100-disk-0.raw", VolumeFormat.QCOW2, MIB_IN_KIB)))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage("illegal name 'vm-100-disk-0.raw' - wrong extension for format ('raw != 'qcow2')");
        assertThat(root).isEmptyDirectory();
    }

    @ParameterizedTest
    @ValueSource(strings = {"vm-100-disk-0", "vm 100.raw", "sub/vm-100-disk-0.raw", "vm-100-disk-0.vhdx"})
    void badNamesAreRefusedBeforeAnythingIsMade(String name) {
        TestStorage t = TestStorage.in(root);
        assertThatThrownBy(() -> t.storage.allocImage(AllocRequest.of(100, name, VolumeFormat.RAW, MIB_IN_KIB)))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage("unable to parse volume filename '" + name + "'");
        assertThat(root).isEmptyDirectory();
    }

    @Test
    void snapshotFilesAreNoImageNames() {
        TestStorage t = TestStorage.in(root);
        assertThatThrownBy(() -> t.storage.allocImage(
                        AllocRequest.of(100, "snap-s1-vm-100-disk-0.qcow2", VolumeFormat.QCOW2, MIB_IN_KIB)))
                .hasMessage("'snap-s1-vm-100-disk-0.qcow2' is a snapshot filename, not a volume!");
    }

    @Test
    void refusesToOverwrite() throws Exception {
        TestStorage t = TestStorage.in(root);
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, MIB_IN_KIB));
        Path file = root.resolve("images/100/vm-100-disk-0.raw");
        byte[] before = Files.readAllBytes(file);
        assertThatThrownBy(() -> t.storage.allocImage(
                        AllocRequest.of(100, "vm-100-disk-0.raw", VolumeFormat.RAW, 2 * MIB_IN_KIB)))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage("disk image '" + file + "' already exists");
        assertThat(Files.readAllBytes(file)).isEqualTo(before);
    }

    @Test
    void aSizeTheFileSystemCannotHoldLeavesNothingBehind() {
        TestStorage t = TestStorage.in(root);
        // 20 TiB: above ext4's largest file (and qcow2's limit is far above): refused before qemu-img runs
        assertThatThrownBy(() ->
                        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 20L * 1024 * 1024 * 1024)))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessageStartingWith("size: 21990232555520 bytes is more than a raw image can hold here");
        assertThat(root.resolve("images")).isEmptyDirectory();
    }

    @Test
    void aRefusedSizeKeepsTheGuestsOtherImages() {
        TestStorage t = TestStorage.in(root);
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, MIB_IN_KIB));
        assertThatThrownBy(() -> t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, 3L << 40)))
                .hasMessageStartingWith("size: 3377699720527872 bytes is more than a qcow2 image can hold here");
        assertThat(TestStorage.tree(root.resolve("images"))).containsExactly("100/", "100/vm-100-disk-0.raw");
    }

    // --- preallocation, as qemu-img reports the allocation (actual-size)

    @Test
    void rawIsSparseByDefaultAndFullyAllocatedWithFalloc() {
        long size = 16 * MIB_IN_KIB;
        TestStorage sparse = TestStorage.in(root.resolve("sparse"));
        sparse.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, size));
        TestStorage falloc = TestStorage.in(root.resolve("falloc"), Map.of("preallocation", "falloc"));
        falloc.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, size));

        long sparseUsed = TestStorage.qemuInfo(root.resolve("sparse/images/100/vm-100-disk-0.raw"))
                .get("actual-size")
                .asLong();
        long fallocUsed = TestStorage.qemuInfo(root.resolve("falloc/images/100/vm-100-disk-0.raw"))
                .get("actual-size")
                .asLong();
        assertThat(sparseUsed).isLessThan(1024 * 1024);
        assertThat(fallocUsed).isGreaterThanOrEqualTo(size * 1024);
    }

    @Test
    void rawMetadataMeansOff() {
        TestStorage t = TestStorage.in(root, Map.of("preallocation", "metadata"));
        t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, 16 * MIB_IN_KIB));
        assertThat(TestStorage.qemuInfo(root.resolve("images/100/vm-100-disk-0.raw"))
                        .get("actual-size")
                        .asLong())
                .isLessThan(1024 * 1024);
    }

    @Test
    void qcow2GetsMetadataPreallocationByDefault() {
        long size = 1024 * MIB_IN_KIB;
        TestStorage byDefault = TestStorage.in(root.resolve("default"));
        byDefault.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, size));
        TestStorage off = TestStorage.in(root.resolve("off"), Map.of("preallocation", "off"));
        off.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, size));
        TestStorage full = TestStorage.in(root.resolve("full"), Map.of("preallocation", "full"));
        full.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, 16 * MIB_IN_KIB));

        long metadataUsed = TestStorage.qemuInfo(root.resolve("default/images/100/vm-100-disk-0.qcow2"))
                .get("actual-size")
                .asLong();
        long offUsed = TestStorage.qemuInfo(root.resolve("off/images/100/vm-100-disk-0.qcow2"))
                .get("actual-size")
                .asLong();
        long fullUsed = TestStorage.qemuInfo(root.resolve("full/images/100/vm-100-disk-0.qcow2"))
                .get("actual-size")
                .asLong();
        assertThat(offUsed).isLessThan(1024 * 1024);
        assertThat(metadataUsed).as("L2 tables of a 1 GiB image").isGreaterThan(offUsed);
        assertThat(fullUsed).isGreaterThanOrEqualTo(16L * 1024 * 1024);
    }

    @Test
    void subclustersOnGivesEveryQcow2ExtendedL2() {
        TestStorage plain = TestStorage.in(root.resolve("auto"));
        plain.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB));
        TestStorage on = TestStorage.in(root.resolve("on"), Map.of("qcow2-subclusters", "on"));
        on.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB));

        JsonNode autoInfo = TestStorage.qemuInfo(root.resolve("auto/images/100/vm-100-disk-0.qcow2"));
        JsonNode onInfo = TestStorage.qemuInfo(root.resolve("on/images/100/vm-100-disk-0.qcow2"));
        assertThat(autoInfo.at("/format-specific/data/extended-l2").asBoolean()).isFalse();
        assertThat(onInfo.at("/format-specific/data/extended-l2").asBoolean()).isTrue();
        assertThat(onInfo.get("cluster-size").asInt()).isEqualTo(128 * 1024);
    }

    @Test
    void aClusterTooSmallForSubclustersIsRefusedBeforeAnythingRuns() {
        TestStorage t = TestStorage.in(
                root, Map.of("preallocation", "metadata", "qcow2-subclusters", "on", "qcow2-cluster-size", "4k"));
        assertThatThrownBy(() -> t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB)))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT));
        assertThat(root.resolve("images")).isEmptyDirectory();
    }

    // --- dry-run: printed, not made

    @Test
    void dryRunPrintsTheCommandsAndMakesNothing() {
        TestStorage t = TestStorage.dryRun(root, Map.of());
        String volname = t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB));

        assertThat(volname).isEqualTo("100/vm-100-disk-0.qcow2");
        assertThat(root).isEmptyDirectory();
        assertThat(t.console.infos)
                .anySatisfy(l -> assertThat(l).startsWith("+ mkdir -p ").endsWith("images/100"));
        assertThat(t.console.infos)
                .anySatisfy(
                        l -> assertThat(l)
                                .matches(
                                        "\\+ \\S*qemu-img create -o preallocation=metadata -f qcow2 \\S+/images/100/vm-100-disk-0\\.qcow2 1024K"));
    }
}
