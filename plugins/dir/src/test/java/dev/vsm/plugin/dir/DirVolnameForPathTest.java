package dev.vsm.plugin.dir;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * pve's {@code src/test/path_to_volume_id_test.pm}, every case: each file is made (empty, as pve's
 * test makes it; a trailing '/' makes a directory) and mapped back to a volume name. pve answers
 * {@code (vtype, volid)}; the storage answers the volume name, so the content type is checked
 * through the parsed name. Empty {@code .qcow2} files are listed after qemu-img refuses them as
 * qcow2, exactly as in pve.
 */
class DirVolnameForPathTest {
    @TempDir
    Path root;

    static Stream<Arguments> pveCases() {
        return Stream.of(
                Arguments.of(
                        "Image, qcow2", "images/16110/vm-16110-disk-0.qcow2", "images", "16110/vm-16110-disk-0.qcow2"),
                Arguments.of("Image, raw", "images/16112/vm-16112-disk-0.raw", "images", "16112/vm-16112-disk-0.raw"),
                Arguments.of(
                        "Image template, qcow2",
                        "images/9004/base-9004-disk-0.qcow2",
                        "images",
                        "9004/base-9004-disk-0.qcow2"),
                Arguments.of(
                        "Backup, vma.gz",
                        "dump/vzdump-qemu-16110-2020_03_30-21_11_40.vma.gz",
                        "backup",
                        "backup/vzdump-qemu-16110-2020_03_30-21_11_40.vma.gz"),
                Arguments.of(
                        "Backup, vma.lzo",
                        "dump/vzdump-qemu-16110-2020_03_30-21_12_45.vma.lzo",
                        "backup",
                        "backup/vzdump-qemu-16110-2020_03_30-21_12_45.vma.lzo"),
                Arguments.of(
                        "Backup, vma",
                        "dump/vzdump-qemu-16110-2020_03_30-21_13_55.vma",
                        "backup",
                        "backup/vzdump-qemu-16110-2020_03_30-21_13_55.vma"),
                Arguments.of(
                        "Backup, tar.lzo",
                        "dump/vzdump-lxc-16112-2020_03_30-21_39_30.tar.lzo",
                        "backup",
                        "backup/vzdump-lxc-16112-2020_03_30-21_39_30.tar.lzo"),
                Arguments.of(
                        "Backup, vma.zst",
                        "dump/vzdump-qemu-16110-2020_03_30-21_13_55.vma.zst",
                        "backup",
                        "backup/vzdump-qemu-16110-2020_03_30-21_13_55.vma.zst"),
                Arguments.of(
                        "Backup, tar.zst",
                        "dump/vzdump-lxc-16112-2020_03_30-21_39_30.tar.zst",
                        "backup",
                        "backup/vzdump-lxc-16112-2020_03_30-21_39_30.tar.zst"),
                Arguments.of(
                        "Backup, tar.bz2",
                        "dump/vzdump-openvz-16112-2020_03_30-21_39_30.tar.bz2",
                        "backup",
                        "backup/vzdump-openvz-16112-2020_03_30-21_39_30.tar.bz2"),
                Arguments.of(
                        "ISO file",
                        "template/iso/yet-again-a-installation-disk.iso",
                        "iso",
                        "iso/yet-again-a-installation-disk.iso"),
                Arguments.of(
                        "CT template, tar.gz",
                        "template/cache/debian-10.0-standard_10.0-1_amd64.tar.gz",
                        "vztmpl",
                        "vztmpl/debian-10.0-standard_10.0-1_amd64.tar.gz"),
                Arguments.of(
                        "CT template, wrong ending, tar bz2",
                        "template/cache/debian-10.0-standard_10.0-1_amd64.tar.bz2",
                        "vztmpl",
                        "vztmpl/debian-10.0-standard_10.0-1_amd64.tar.bz2"),
                Arguments.of(
                        "Rootdir, folder subvol, legacy naming",
                        "images/1234/subvol-1234-disk-0.subvol/",
                        "images",
                        "1234/subvol-1234-disk-0.subvol"),
                Arguments.of(
                        "Rootdir, folder subvol",
                        "images/1234/subvol-1234-disk-0.subvol/",
                        "images",
                        "1234/subvol-1234-disk-0.subvol"),
                Arguments.of("Snippets, yaml", "snippets/userconfig.yaml", "snippets", "snippets/userconfig.yaml"),
                Arguments.of("Snippets, hookscript", "snippets/hookscript.pl", "snippets", "snippets/hookscript.pl"),
                Arguments.of(
                        "CT template, tar.xz",
                        "template/cache/debian-10.0-standard_10.0-1_amd64.tar.xz",
                        "vztmpl",
                        "vztmpl/debian-10.0-standard_10.0-1_amd64.tar.xz"),
                Arguments.of("Import, ova", "import/import.ova", "import", "import/import.ova"),
                Arguments.of("Import, ovf", "import/import.ovf", "import", "import/import.ovf"),
                // no matches, path or files with failures
                Arguments.of(
                        "Base template, string as vmid in folder name", "images/ssss/base-4321-disk-0.raw", null, null),
                Arguments.of("ISO file, wrong ending", "template/iso/yet-again-a-installation-disk.dvd", null, null),
                Arguments.of(
                        "CT template, wrong ending, zip.gz",
                        "template/cache/debian-10.0-standard_10.0-1_amd64.zip.gz",
                        null,
                        null),
                Arguments.of(
                        "Backup, wrong format, openvz, zip.gz",
                        "dump/vzdump-openvz-16112-2020_03_30-21_39_30.zip.gz",
                        null,
                        null),
                Arguments.of(
                        "Backup, wrong format, openvz, tgz.lzo",
                        "dump/vzdump-openvz-16112-2020_03_30-21_39_30.tgz.lzo",
                        null,
                        null),
                Arguments.of(
                        "Backup, wrong ending, qemu, vma.xz",
                        "dump/vzdump-qemu-16110-2020_03_30-21_12_40.vma.xz",
                        null,
                        null),
                Arguments.of(
                        "Backup, wrong format, qemu, vms.gz",
                        "dump/vzdump-qemu-16110-2020_03_30-21_12_40.vms.gz",
                        null,
                        null),
                Arguments.of("Image, string as vmid in folder name", "images/ssss/vm-1234-disk-0.qcow2", null, null),
                Arguments.of("Import, non ova/ovf/disk image in import dir", "import/test.foo", null, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void pveCases(String description, String file, String type, String volname) throws IOException {
        Path path = root.resolve(file);
        if (file.endsWith("/")) {
            Files.createDirectories(path);
        } else {
            Files.createDirectories(path.getParent());
            Files.write(path, new byte[0]);
        }
        TestStorage t = TestStorage.in(root);

        Optional<String> found = t.storage.volnameForPath(path);

        assertThat(found).isEqualTo(Optional.ofNullable(volname));
        found.ifPresent(v -> assertThat(t.storage.parseVolname(v).type().id()).isEqualTo(type));
    }

    @Test
    void aLinkedCloneIsNamedWithItsBase() {
        TestStorage t = TestStorage.in(root);
        String base = t.storage.createBase(t.storage.parseVolname(
                t.storage.allocImage(dev.vsm.spi.AllocRequest.of(100, null, dev.vsm.spi.VolumeFormat.QCOW2, 1024))));
        String clone = t.storage.cloneImage(t.storage.parseVolname(base), 101);
        try {
            assertThat(t.storage.volnameForPath(root.resolve("images/101/vm-101-disk-0.qcow2")))
                    .contains(clone);
        } finally {
            TestStorage.clearImmutable(root);
        }
    }

    /** A path 'vsm path' printed before the image exists maps back; a name vsm would not give that owner does not. */
    @Test
    void aMissingImageHasTheNameItsPathSpells() {
        TestStorage t = TestStorage.in(root);
        assertThat(t.storage.volnameForPath(root.resolve("images/100/vm-100-disk-0.raw")))
                .contains("100/vm-100-disk-0.raw");
        assertThat(t.storage.volnameForPath(root.resolve("images/100/base-100-disk-1.qcow2")))
                .contains("100/base-100-disk-1.qcow2");
        assertThat(t.storage.volnameForPath(root.resolve("images/100/vm-101-disk-0.raw")))
                .isEmpty();
        assertThat(t.storage.volnameForPath(root.resolve("images/100/custom.raw")))
                .isEmpty();
        assertThat(t.storage.volnameForPath(root.resolve("images/100/..vm-100-disk-0.raw")))
                .isEmpty();
        assertThat(t.storage.volnameForPath(root.resolve("images/100/vm-100-disk-0.txt")))
                .isEmpty();
    }

    @Test
    void pathsThroughSymbolicLinksAndRelativePathsAreResolved() throws IOException {
        Files.createDirectories(root.resolve("real/template/iso"));
        Files.write(root.resolve("real/template/iso/a.iso"), new byte[0]);
        Files.createSymbolicLink(root.resolve("link"), root.resolve("real"));
        TestStorage viaLink = TestStorage.in(root.resolve("link"));
        assertThat(viaLink.storage.volnameForPath(root.resolve("real/template/iso/a.iso")))
                .contains("iso/a.iso");
        assertThat(viaLink.storage.volnameForPath(root.resolve("link/template/iso/../iso/a.iso")))
                .contains("iso/a.iso");
    }
}
