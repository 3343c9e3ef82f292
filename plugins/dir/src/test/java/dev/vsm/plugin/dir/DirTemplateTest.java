package dev.vsm.plugin.dir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.engine.Capabilities;
import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.Feature;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Templates (create-base), linked clones, resize and free with the real qemu-img. */
class DirTemplateTest {
    private static final long MIB_IN_KIB = 1024;

    @TempDir
    Path root;

    @AfterEach
    void allowCleanup() {
        TestStorage.clearImmutable(root);
    }

    @Test
    void createBaseRenamesAndProtectsTheImage() throws Exception {
        TestStorage t = TestStorage.in(root);
        String volname = t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB));

        String base = t.storage.createBase(t.storage.parseVolname(volname));

        assertThat(base).isEqualTo("100/base-100-disk-0.qcow2");
        Path file = root.resolve("images/100/base-100-disk-0.qcow2");
        assertThat(root.resolve("images/100/vm-100-disk-0.qcow2")).doesNotExist();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("r--r-----");
        assertThat(TestStorage.isImmutable(file)).isTrue();
        assertThat(t.storage.parseVolname(base).isBase()).isTrue();
    }

    @Test
    void createBaseRefusesBasesAndOtherContent() {
        TestStorage t = TestStorage.in(root);
        String base = t.storage.createBase(
                t.storage.parseVolname(t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, MIB_IN_KIB))));

        assertThatThrownBy(() -> t.storage.createBase(t.storage.parseVolname(base)))
                .hasMessage("create_base not possible with base image");
        assertThatThrownBy(() -> t.storage.createBase(t.storage.parseVolname("iso/x.iso")))
                .hasMessage("create_base on wrong vtype 'iso'");
    }

    @Test
    void createBaseOfAMissingImageFails() {
        TestStorage t = TestStorage.in(root);
        assertThatThrownBy(() -> t.storage.createBase(t.storage.parseVolname("100/vm-100-disk-0.raw")))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FAILED))
                .hasMessage("file_size_info on '100/vm-100-disk-0.raw' failed");
    }

    @Test
    void cloneMakesABackedQcow2WithSubclusters() {
        TestStorage t = TestStorage.in(root);
        String base = t.storage.createBase(t.storage.parseVolname(
                t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, 4 * MIB_IN_KIB))));

        String clone = t.storage.cloneImage(t.storage.parseVolname(base), 101);

        assertThat(clone).isEqualTo("100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2");
        Path file = root.resolve("images/101/vm-101-disk-0.qcow2");
        JsonNode info = TestStorage.qemuInfo(file);
        assertThat(info.get("backing-filename").asText()).isEqualTo("../100/base-100-disk-0.qcow2");
        assertThat(info.get("backing-filename-format").asText()).isEqualTo("qcow2");
        assertThat(info.get("virtual-size").asLong()).isEqualTo(4L * 1024 * 1024);
        assertThat(info.at("/format-specific/data/extended-l2").asBoolean()).isTrue();
        assertThat(info.get("cluster-size").asInt()).isEqualTo(128 * 1024);
        assertThat(t.console.infos)
                .contains(
                        "clone 100/base-100-disk-0.qcow2: images, vm-101-disk-0.qcow2, 101 to vm-101-disk-0.qcow2 (base=../100/base-100-disk-0.qcow2)");
    }

    @Test
    void clonesOfARawBaseAndWithoutSubclusters() {
        TestStorage t = TestStorage.in(root, Map.of("qcow2-subclusters", "off"));
        String base = t.storage.createBase(
                t.storage.parseVolname(t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, MIB_IN_KIB))));

        String clone = t.storage.cloneImage(t.storage.parseVolname(base), 101);

        JsonNode info = TestStorage.qemuInfo(root.resolve("images/101/vm-101-disk-0.qcow2"));
        assertThat(clone).isEqualTo("100/base-100-disk-0.raw/101/vm-101-disk-0.qcow2");
        assertThat(info.get("backing-filename-format").asText()).isEqualTo("raw");
        assertThat(info.at("/format-specific/data/extended-l2").asBoolean()).isFalse();
    }

    @Test
    void clonesTakeTheNextFreeNumberOfTheirGuest() {
        TestStorage t = TestStorage.in(root);
        String base = t.storage.createBase(t.storage.parseVolname(
                t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB))));
        t.storage.allocImage(AllocRequest.of(101, null, VolumeFormat.RAW, MIB_IN_KIB));

        assertThat(t.storage.cloneImage(t.storage.parseVolname(base), 101))
                .isEqualTo("100/base-100-disk-0.qcow2/101/vm-101-disk-1.qcow2");
        assertThat(t.storage.cloneImage(t.storage.parseVolname(base), 101))
                .isEqualTo("100/base-100-disk-0.qcow2/101/vm-101-disk-2.qcow2");
    }

    @Test
    void cloneRefusesNonBasesAndSubvols() {
        TestStorage t = TestStorage.in(root);
        String image = t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB));
        assertThatThrownBy(() -> t.storage.cloneImage(t.storage.parseVolname(image), 101))
                .hasMessage("clone_image only works on base images");
        assertThatThrownBy(() -> t.storage.cloneImage(t.storage.parseVolname("100/base-100-disk-1.subvol"), 101))
                .hasMessage("this storage type does not support clone_image on subvolumes");
        assertThatThrownBy(() -> t.storage.cloneImage(t.storage.parseVolname("backup/vzdump-qemu-100-x.vma"), 101))
                .hasMessage("clone_image on wrong vtype 'backup'");
        assertThat(root.resolve("images/101")).doesNotExist();
    }

    @Test
    void aFailedCloneLeavesNothingBehind() {
        TestStorage t = TestStorage.in(root);
        // a base volume name whose file does not exist: its size, which the clone takes, cannot be read
        assertThatThrownBy(() -> t.storage.cloneImage(t.storage.parseVolname("100/base-100-disk-0.qcow2"), 101))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FAILED))
                .hasMessage("failed to stat '" + root.resolve("images/100/base-100-disk-0.qcow2") + "'");
        assertThat(root.resolve("images/101")).doesNotExist();
    }

    @Test
    void aCloneCanBecomeABaseInTurn() {
        TestStorage t = TestStorage.in(root);
        String base = t.storage.createBase(t.storage.parseVolname(
                t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB))));
        String clone = t.storage.cloneImage(t.storage.parseVolname(base), 101);

        String cloneBase = t.storage.createBase(t.storage.parseVolname(clone));

        assertThat(cloneBase).isEqualTo("100/base-100-disk-0.qcow2/101/base-101-disk-0.qcow2");
        assertThat(root.resolve("images/101/base-101-disk-0.qcow2")).isRegularFile();
        String second = t.storage.cloneImage(t.storage.parseVolname(cloneBase), 102);
        assertThat(second).isEqualTo("101/base-101-disk-0.qcow2/102/vm-102-disk-0.qcow2");
        assertThat(TestStorage.qemuInfo(root.resolve("images/102/vm-102-disk-0.qcow2"))
                        .get("backing-filename")
                        .asText())
                .isEqualTo("../101/base-101-disk-0.qcow2");
    }

    @Test
    void createBaseChecksAClonesRecordedParent() {
        TestStorage t = TestStorage.in(root);
        String base = t.storage.createBase(t.storage.parseVolname(
                t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB))));
        t.storage.cloneImage(t.storage.parseVolname(base), 101);

        assertThatThrownBy(() -> t.storage.createBase(
                        t.storage.parseVolname("100/base-100-disk-9.qcow2/101/vm-101-disk-0.qcow2")))
                .hasMessage(
                        "volname '100/base-100-disk-9.qcow2/101/vm-101-disk-0.qcow2' contains wrong information about parent");
    }

    // --- resize

    @Test
    void resizesRawAndQcow2InBytes() {
        TestStorage t = TestStorage.in(root);
        String raw = t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, MIB_IN_KIB));
        String qcow2 = t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB));

        t.storage.volumeResize(t.storage.parseVolname(raw), 3L * 1024 * 1024);
        t.storage.volumeResize(t.storage.parseVolname(qcow2), 5L * 1024 * 1024);

        assertThat(TestStorage.qemuInfo(root.resolve("images/100/vm-100-disk-0.raw"))
                        .get("virtual-size")
                        .asLong())
                .isEqualTo(3L << 20);
        assertThat(TestStorage.qemuInfo(root.resolve("images/100/vm-100-disk-1.qcow2"))
                        .get("virtual-size")
                        .asLong())
                .isEqualTo(5L << 20);
        assertThat(t.storage.volumeSizeInfo(t.storage.parseVolname(qcow2)).virtualSize())
                .isEqualTo(5L << 20);
    }

    @Test
    void resizeRefusesOtherFormats() {
        TestStorage t = TestStorage.in(root);
        String vmdk = t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.VMDK, MIB_IN_KIB));
        assertThatThrownBy(() -> t.storage.volumeResize(t.storage.parseVolname(vmdk), 2L << 20))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage("can't resize this image format");
    }

    // --- free

    @Test
    void freeRemovesTheImageAndTheEmptiedGuestDirectory() {
        TestStorage t = TestStorage.in(root);
        String first = t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, MIB_IN_KIB));
        String second = t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB));

        assertThat(t.storage.freeImage(t.storage.parseVolname(first))).isEmpty();
        assertThat(TestStorage.tree(root.resolve("images"))).containsExactly("100/", "100/vm-100-disk-1.qcow2");
        t.storage.freeImage(t.storage.parseVolname(second));
        assertThat(root.resolve("images")).isEmptyDirectory();
    }

    @Test
    void freeOfAMissingImageIsBadInput() {
        TestStorage t = TestStorage.in(root);
        assertThatThrownBy(() -> t.storage.freeImage(t.storage.parseVolname("100/vm-100-disk-0.raw")))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessageContaining("does not exist");
        assertThat(t.console.warnings).isEmpty();
    }

    @Test
    void freeOfABaseClearsTheImmutableFlagFirst() {
        TestStorage t = TestStorage.in(root);
        String base = t.storage.createBase(
                t.storage.parseVolname(t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.RAW, MIB_IN_KIB))));
        t.storage.freeImage(t.storage.parseVolname(base));
        assertThat(root.resolve("images")).isEmptyDirectory();
    }

    @Test
    void freeOfALinkedCloneKeepsItsBase() {
        TestStorage t = TestStorage.in(root);
        String base = t.storage.createBase(t.storage.parseVolname(
                t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.QCOW2, MIB_IN_KIB))));
        String clone = t.storage.cloneImage(t.storage.parseVolname(base), 101);
        t.storage.freeImage(t.storage.parseVolname(clone));
        assertThat(TestStorage.tree(root.resolve("images"))).containsExactly("100/", "100/base-100-disk-0.qcow2");
    }

    @Test
    void freeOfASubvolRemovesItsTree() throws Exception {
        TestStorage t = TestStorage.in(root);
        String subvol = t.storage.allocImage(AllocRequest.of(100, null, VolumeFormat.SUBVOL, 0));
        Path dir = root.resolve("images/100/subvol-100-disk-0.subvol");
        Files.createDirectories(dir.resolve("etc/deep"));
        Files.writeString(dir.resolve("etc/deep/file"), "x");
        Files.createSymbolicLink(dir.resolve("link-out"), root.resolve("outside"));
        Files.writeString(root.resolve("outside"), "keep me");

        t.storage.freeImage(t.storage.parseVolname(subvol));

        assertThat(TestStorage.tree(root)).containsExactly("images/", "outside");
    }

    @Test
    void protectedBackupsAreNotFreed() throws Exception {
        TestStorage t = TestStorage.in(root);
        Path dump = Files.createDirectories(root.resolve("dump"));
        Files.writeString(dump.resolve("vzdump-qemu-100-2020_03_30-21_12_40.vma"), "x");
        Files.writeString(dump.resolve("vzdump-qemu-100-2020_03_30-21_12_40.vma.protected"), "");

        assertThatThrownBy(() ->
                        t.storage.freeImage(t.storage.parseVolname("backup/vzdump-qemu-100-2020_03_30-21_12_40.vma")))
                .hasMessage(
                        "cannot remove protected volume 'backup/vzdump-qemu-100-2020_03_30-21_12_40.vma' on 'local'");
        assertThat(dump.resolve("vzdump-qemu-100-2020_03_30-21_12_40.vma")).exists();
    }

    // --- features (pve's volume_has_feature table)

    @Test
    void features() {
        TestStorage t = TestStorage.in(root);
        assertThat(Capabilities.features(t.storage, t.storage.parseVolname("100/vm-100-disk-0.qcow2")))
                .containsExactlyInAnyOrder(
                        Feature.SNAPSHOT, Feature.TEMPLATE, Feature.COPY, Feature.SPARSEINIT, Feature.RENAME);
        assertThat(Capabilities.features(t.storage, t.storage.parseVolname("100/vm-100-disk-0.raw")))
                .containsExactlyInAnyOrder(Feature.TEMPLATE, Feature.COPY, Feature.SPARSEINIT, Feature.RENAME);
        assertThat(Capabilities.features(t.storage, t.storage.parseVolname("100/base-100-disk-0.raw")))
                .containsExactlyInAnyOrder(Feature.CLONE, Feature.COPY, Feature.SPARSEINIT);
        assertThat(Capabilities.features(t.storage, t.storage.parseVolname("100/subvol-100-disk-0.subvol")))
                .containsExactly(Feature.TEMPLATE);
        assertThat(t.storage.hasFeature(Feature.SNAPSHOT, t.storage.parseVolname("100/vm-100-disk-0.qcow2"), "s1"))
                .isTrue();
        assertThat(t.storage.hasFeature(Feature.COPY, t.storage.parseVolname("100/vm-100-disk-0.raw"), "s1"))
                .isFalse();
    }
}
