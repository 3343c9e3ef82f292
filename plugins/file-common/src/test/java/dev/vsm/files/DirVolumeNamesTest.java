package dev.vsm.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeName;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * pve's {@code src/test/parse_volname_test.pm}, every case, plus the VMID rule vsm adds.
 * Expected tuples are pve's {@code (vtype, name, vmid, basename, basevmid, isBase, format)}.
 */
class DirVolumeNamesTest {
    private static final int VMID = 1234;

    static Stream<Arguments> parsed() {
        List<Arguments> cases = new ArrayList<>(List.of(
                ok(
                        "VM disk image, linked, qcow2, vm- as base-",
                        VMID + "/vm-1234-disk-0.qcow2/1234/vm-1234-disk-0.qcow2",
                        ContentType.IMAGES,
                        "vm-1234-disk-0.qcow2",
                        VMID,
                        "vm-1234-disk-0.qcow2",
                        VMID,
                        false,
                        "qcow2"),
                ok(
                        "ISO image, iso",
                        "iso/some-installation-disk.iso",
                        ContentType.ISO,
                        "some-installation-disk.iso",
                        null,
                        null,
                        null,
                        false,
                        "raw"),
                ok(
                        "ISO image, img",
                        "iso/some-other-installation-disk.img",
                        ContentType.ISO,
                        "some-other-installation-disk.img",
                        null,
                        null,
                        null,
                        false,
                        "raw"),
                ok(
                        "Container template tar",
                        "vztmpl/debian-10.0-standard_10.0-1_amd64.tar",
                        ContentType.VZTMPL,
                        "debian-10.0-standard_10.0-1_amd64.tar",
                        null,
                        null,
                        null,
                        false,
                        "raw"),
                ok(
                        "Container template tar.gz",
                        "vztmpl/debian-10.0-standard_10.0-1_amd64.tar.gz",
                        ContentType.VZTMPL,
                        "debian-10.0-standard_10.0-1_amd64.tar.gz",
                        null,
                        null,
                        null,
                        false,
                        "raw"),
                ok(
                        "Container template tar.xz",
                        "vztmpl/debian-10.0-standard_10.0-1_amd64.tar.xz",
                        ContentType.VZTMPL,
                        "debian-10.0-standard_10.0-1_amd64.tar.xz",
                        null,
                        null,
                        null,
                        false,
                        "raw"),
                ok(
                        "Container template tar.bz2",
                        "vztmpl/debian-10.0-standard_10.0-1_amd64.tar.bz2",
                        ContentType.VZTMPL,
                        "debian-10.0-standard_10.0-1_amd64.tar.bz2",
                        null,
                        null,
                        null,
                        false,
                        "raw"),
                ok(
                        "Container rootdir, subvol",
                        "1234/subvol-1234-disk-0.subvol",
                        ContentType.IMAGES,
                        "subvol-1234-disk-0.subvol",
                        VMID,
                        null,
                        null,
                        false,
                        "subvol"),
                ok(
                        "Backup archive, no virtualization type",
                        "backup/vzdump-none-1234-2020_03_30-21_39_30.tar",
                        ContentType.BACKUP,
                        "vzdump-none-1234-2020_03_30-21_39_30.tar",
                        null,
                        null,
                        null,
                        false,
                        "raw"),
                ok(
                        "Snippets, yaml",
                        "snippets/userconfig.yaml",
                        ContentType.SNIPPETS,
                        "userconfig.yaml",
                        null,
                        null,
                        null,
                        false,
                        "raw"),
                ok(
                        "Snippets, perl",
                        "snippets/hookscript.pl",
                        ContentType.SNIPPETS,
                        "hookscript.pl",
                        null,
                        null,
                        null,
                        false,
                        "raw"),
                ok(
                        "Import, ova",
                        "import/import.ova",
                        ContentType.IMPORT,
                        "import.ova",
                        null,
                        null,
                        null,
                        false,
                        "ova"),
                ok(
                        "Import, ovf",
                        "import/import.ovf",
                        ContentType.IMPORT,
                        "import.ovf",
                        null,
                        null,
                        null,
                        false,
                        "ovf"),
                ok(
                        "Import, inner file of ova, qcow2",
                        "import/import.ova/disk.qcow2",
                        ContentType.IMPORT,
                        "import.ova/disk.qcow2",
                        null,
                        null,
                        null,
                        false,
                        "ova+qcow2"),
                ok(
                        "Import, inner file of ova, vmdk",
                        "import/import.ova/disk.vmdk",
                        ContentType.IMPORT,
                        "import.ova/disk.vmdk",
                        null,
                        null,
                        null,
                        false,
                        "ova+vmdk"),
                ok(
                        "Import, inner file of ova with whitespace in name",
                        "import/import.ova/OS disk.vmdk",
                        ContentType.IMPORT,
                        "import.ova/OS disk.vmdk",
                        null,
                        null,
                        null,
                        false,
                        "ova+vmdk"),
                ok(
                        "Import, inner file of ova, raw",
                        "import/import.ova/disk.raw",
                        ContentType.IMPORT,
                        "import.ova/disk.raw",
                        null,
                        null,
                        null,
                        false,
                        "ova+raw")));

        for (String s : List.of("raw", "qcow2", "vmdk")) {
            cases.add(ok(
                    "VM disk image, " + s,
                    "1234/vm-1234-disk-1." + s,
                    ContentType.IMAGES,
                    "vm-1234-disk-1." + s,
                    VMID,
                    null,
                    null,
                    false,
                    s));
            cases.add(ok(
                    "VM disk image, linked, " + s,
                    "1234/base-1234-disk-0." + s + "/1234/vm-1234-disk-0." + s,
                    ContentType.IMAGES,
                    "vm-1234-disk-0." + s,
                    VMID,
                    "base-1234-disk-0." + s,
                    VMID,
                    false,
                    s));
            cases.add(ok(
                    "VM disk image, base, " + s,
                    "1234/base-1234-disk-0." + s,
                    ContentType.IMAGES,
                    "base-1234-disk-0." + s,
                    VMID,
                    null,
                    null,
                    true,
                    s));
        }

        Map<String, List<String>> backupSuffixes = Map.of(
                "qemu", List.of("vma", "vma.gz", "vma.lzo", "vma.zst"),
                "lxc", List.of("tar", "tgz", "tar.gz", "tar.lzo", "tar.zst", "tar.bz2"),
                "openvz", List.of("tar", "tgz", "tar.gz", "tar.lzo", "tar.zst"));
        backupSuffixes.forEach((virt, suffixes) -> {
            for (String s : suffixes) {
                String file = "vzdump-" + virt + "-1234-2020_03_30-21_12_40." + s;
                cases.add(ok(
                        "Backup archive, " + virt + ", " + s,
                        "backup/" + file,
                        ContentType.BACKUP,
                        file,
                        VMID,
                        null,
                        null,
                        false,
                        "raw"));
            }
        });
        return cases.stream();
    }

    static Stream<Arguments> refused() {
        List<Arguments> cases = new ArrayList<>(List.of(
                bad(
                        "VM disk image, base, raw",
                        "ssss/base-1234-disk-0.raw",
                        "unable to parse directory volume name 'ssss/base-1234-disk-0.raw'"),
                bad(
                        "ISO image, dvd",
                        "iso/yet-again-a-installation-disk.dvd",
                        "unable to parse directory volume name 'iso/yet-again-a-installation-disk.dvd'"),
                bad(
                        "Container template, zip.gz",
                        "vztmpl/debian-10.0-standard_10.0-1_amd64.zip.gz",
                        "unable to parse directory volume name 'vztmpl/debian-10.0-standard_10.0-1_amd64.zip.gz'"),
                bad(
                        "VM disk image, linked, vhdx",
                        "1234/base-1234-disk-0.vhdx/1234/vm-1234-disk-0.vhdx",
                        "unable to parse volume filename 'base-1234-disk-0.vhdx'"),
                bad(
                        "VM disk image, linked, qcow2, first vmid",
                        "ssss/base-1234-disk-0.qcow2/1234/vm-1234-disk-0.qcow2",
                        "unable to parse directory volume name 'ssss/base-1234-disk-0.qcow2/1234/vm-1234-disk-0.qcow2'"),
                bad(
                        "VM disk image, linked, qcow2, second vmid",
                        "1234/base-1234-disk-0.qcow2/ssss/vm-1234-disk-0.qcow2",
                        "unable to parse volume filename 'base-1234-disk-0.qcow2/ssss/vm-1234-disk-0.qcow2'"),
                bad(
                        "import dir but no ova/ovf/disk image",
                        "import/test.foo",
                        "unable to parse directory volume name 'import/test.foo'")));
        Map<String, List<String>> nonBackupSuffixes = Map.of(
                "qemu", List.of("vms.gz", "vma.xz"),
                "lxc", List.of("zip.gz", "tgz.lzo"));
        nonBackupSuffixes.forEach((virt, suffixes) -> {
            for (String s : suffixes) {
                String volname = "backup/vzdump-" + virt + "-1234-2020_03_30-21_12_40." + s;
                cases.add(bad(
                        "Backup archive, " + virt + ", " + s,
                        volname,
                        "unable to parse directory volume name '" + volname + "'"));
            }
        });
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void parsed(String description, String volname, VolumeName expected) {
        assertThat(DirVolumeNames.parse(volname)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "failed match: {0}")
    @MethodSource
    void refused(String description, String volname, String message) {
        assertThatThrownBy(() -> DirVolumeNames.parse(volname))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage(message);
    }

    @Test
    void aSnapshotFileIsNotAVolume() {
        assertThatThrownBy(() -> DirVolumeNames.parse("100/snap-s1-vm-100-disk-0.qcow2"))
                .hasMessage("'snap-s1-vm-100-disk-0.qcow2' is a snapshot filename, not a volume!");
    }

    @Test
    void extensionsOfIsoAndTemplatesIgnoreCaseButBackupsDoNot() {
        assertThat(DirVolumeNames.parse("iso/DISK.ISO").type()).isEqualTo(ContentType.ISO);
        assertThat(DirVolumeNames.parse("vztmpl/ct.TAR.ZST").type()).isEqualTo(ContentType.VZTMPL);
        assertThatThrownBy(() -> DirVolumeNames.parse("backup/vzdump-qemu-100-x.VMA"))
                .hasMessage("unable to parse directory volume name 'backup/vzdump-qemu-100-x.VMA'");
    }

    @Test
    void aTemplateTarMayNotBeFollowedByAnotherExtension() {
        assertThatThrownBy(() -> DirVolumeNames.parse("vztmpl/ct.tar.lzo"))
                .hasMessage("unable to parse directory volume name 'vztmpl/ct.tar.lzo'");
    }

    @Test
    void theNumberInAnImageNameIsNotComparedWithItsDirectory() {
        assertThat(DirVolumeNames.parse("100/vm-200-disk-0.raw").vmid()).isEqualTo(100);
    }

    @Test
    void customImageNamesAreAccepted() {
        assertThat(DirVolumeNames.parse("100/foo.raw"))
                .isEqualTo(VolumeName.builder("100/foo.raw", ContentType.IMAGES, "foo.raw", "raw")
                        .vmid(100)
                        .build());
        assertThat(DirVolumeNames.parse("100/base-foo.qcow2").isBase()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "0100/vm-100-disk-0.raw",
                "99999999999/vm-1-disk-0.raw",
                "100/base-100-disk-0.raw/0101/vm-101-disk-0.qcow2"
            })
    void vmidsMustBeCanonicalAndFitAnInt(String volname) {
        assertThatThrownBy(() -> DirVolumeNames.parse(volname))
                .hasMessage("unable to parse directory volume name '" + volname + "'");
    }

    @Test
    void controlCharactersAreNotEchoed() {
        assertThatThrownBy(() -> DirVolumeNames.parse("iso/x\u001b[2J.dvd"))
                .hasMessage("unable to parse directory volume name 'iso/x\\x1b[2J.dvd'");
    }

    private static Arguments ok(
            String description,
            String volname,
            ContentType type,
            String name,
            Integer vmid,
            String baseName,
            Integer baseVmid,
            boolean isBase,
            String format) {
        return Arguments.of(
                description,
                volname,
                VolumeName.builder(volname, type, name, format)
                        .vmid(vmid)
                        .base(baseName, baseVmid)
                        .isBase(isBase)
                        .build());
    }

    private static Arguments bad(String description, String volname, String message) {
        return Arguments.of(description, volname, message);
    }
}
