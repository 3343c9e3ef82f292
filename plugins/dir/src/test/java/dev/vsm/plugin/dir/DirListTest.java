package dev.vsm.plugin.dir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.spi.BackupDetails;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.VolumeInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * pve's {@code src/test/list_volumes_test.pm}: files are made with the real qemu-img (as pve's
 * test does) and listed with the real qemu-img. Differences from pve's test:
 * <ul>
 *   <li>pve mocks stat and qemu-img to report a fixed ctime and allocation; here the sizes are
 *       real (qemu-img makes 128 KiB images and files, as pve asks it to), allocation is checked
 *       to be known and ctime to be recent. Backup times come from their names, read as UTC.</li>
 *   <li>pve reads the cluster's VM list to show a container's images as {@code rootdir}; vsm has
 *       no VM list, so VM 16112's image is listed as {@code images}. pve's check that listing
 *       leaves that VM list unmodified has nothing to check here and is dropped.</li>
 * </ul>
 */
class DirListTest {
    private static final long DEFAULT_SIZE = 131072;
    private static final Set<ContentType> TYPES = EnumSet.of(
            ContentType.ROOTDIR,
            ContentType.IMAGES,
            ContentType.VZTMPL,
            ContentType.ISO,
            ContentType.BACKUP,
            ContentType.SNIPPETS);

    @TempDir
    Path root;

    /** One expected list entry; {@code ctime} only for backups, whose time is in their name. */
    record Row(
            String volid,
            String format,
            ContentType content,
            long size,
            Integer vmid,
            String parent,
            String subtype,
            Long ctime) {
        static Row of(VolumeInfo v) {
            BackupDetails b = v.backup();
            return new Row(
                    v.volid(),
                    v.format(),
                    v.content(),
                    v.size(),
                    v.vmid(),
                    v.parent(),
                    b == null ? null : b.subtype(),
                    b == null ? null : v.ctime());
        }
    }

    static Row image(String volid, String format, int vmid, String parent) {
        return new Row(volid, format, ContentType.IMAGES, DEFAULT_SIZE, vmid, parent, null, null);
    }

    static Row backup(String volid, String format, int vmid, String subtype, long ctime) {
        return new Row(volid, format, ContentType.BACKUP, DEFAULT_SIZE, vmid, null, subtype, ctime);
    }

    static Row file(ContentType content, String volid, String format) {
        return new Row(volid, format, content, DEFAULT_SIZE, null, null, null, null);
    }

    static Stream<Arguments> pveCases() {
        return Stream.of(
                Arguments.of(
                        "VMID: 16110, VM, qcow2, backup, snippets",
                        16110,
                        List.of(
                                "images/16110/vm-16110-disk-0.qcow2",
                                "images/16110/vm-16110-disk-1.raw",
                                "images/16110/vm-16110-disk-2.vmdk",
                                "dump/vzdump-qemu-16110-2020_03_30-21_11_40.vma.gz",
                                "dump/vzdump-qemu-16110-2020_03_30-21_12_45.vma.lzo",
                                "dump/vzdump-qemu-16110-2020_03_30-21_13_55.vma",
                                "dump/vzdump-qemu-16110-2020_03_30-21_13_55.vma.zst",
                                "snippets/userconfig.yaml",
                                "snippets/hookscript.pl"),
                        List.of(),
                        List.of(
                                image("local:16110/vm-16110-disk-0.qcow2", "qcow2", 16110, null),
                                image("local:16110/vm-16110-disk-1.raw", "raw", 16110, null),
                                image("local:16110/vm-16110-disk-2.vmdk", "vmdk", 16110, null),
                                backup(
                                        "local:backup/vzdump-qemu-16110-2020_03_30-21_11_40.vma.gz",
                                        "vma.gz",
                                        16110,
                                        "qemu",
                                        1585602700),
                                backup(
                                        "local:backup/vzdump-qemu-16110-2020_03_30-21_12_45.vma.lzo",
                                        "vma.lzo",
                                        16110,
                                        "qemu",
                                        1585602765),
                                backup(
                                        "local:backup/vzdump-qemu-16110-2020_03_30-21_13_55.vma",
                                        "vma",
                                        16110,
                                        "qemu",
                                        1585602835),
                                backup(
                                        "local:backup/vzdump-qemu-16110-2020_03_30-21_13_55.vma.zst",
                                        "vma.zst",
                                        16110,
                                        "qemu",
                                        1585602835),
                                file(ContentType.SNIPPETS, "local:snippets/hookscript.pl", "snippet"),
                                file(ContentType.SNIPPETS, "local:snippets/userconfig.yaml", "snippet"))),
                Arguments.of(
                        "VMID: 16112, lxc, raw, backup",
                        16112,
                        List.of(
                                "images/16112/vm-16112-disk-0.raw",
                                "dump/vzdump-lxc-16112-2020_03_30-21_39_30.tar.lzo",
                                "dump/vzdump-lxc-16112-2020_03_30-21_49_30.tar.gz",
                                "dump/vzdump-lxc-16112-2020_03_30-21_49_30.tar.zst",
                                "dump/vzdump-lxc-16112-2020_03_30-21_59_30.tgz",
                                "dump/vzdump-openvz-16112-2020_03_30-21_39_30.tar.bz2"),
                        List.of(),
                        List.of(
                                image("local:16112/vm-16112-disk-0.raw", "raw", 16112, null),
                                backup(
                                        "local:backup/vzdump-lxc-16112-2020_03_30-21_39_30.tar.lzo",
                                        "tar.lzo",
                                        16112,
                                        "lxc",
                                        1585604370),
                                backup(
                                        "local:backup/vzdump-lxc-16112-2020_03_30-21_49_30.tar.gz",
                                        "tar.gz",
                                        16112,
                                        "lxc",
                                        1585604970),
                                backup(
                                        "local:backup/vzdump-lxc-16112-2020_03_30-21_49_30.tar.zst",
                                        "tar.zst",
                                        16112,
                                        "lxc",
                                        1585604970),
                                backup(
                                        "local:backup/vzdump-lxc-16112-2020_03_30-21_59_30.tgz",
                                        "tgz",
                                        16112,
                                        "lxc",
                                        1585605570),
                                backup(
                                        "local:backup/vzdump-openvz-16112-2020_03_30-21_39_30.tar.bz2",
                                        "tar.bz2",
                                        16112,
                                        "openvz",
                                        1585604370))),
                Arguments.of(
                        "VMID: 16114, VM, qcow2, linked clone",
                        16114,
                        List.of("images/16114/vm-16114-disk-0.qcow2", "images/16114/vm-16114-disk-1.qcow2"),
                        List.of("../9004/base-9004-disk-0.qcow2", "../9004/base-9004-disk-1.qcow2"),
                        List.of(
                                image(
                                        "local:9004/base-9004-disk-0.qcow2/16114/vm-16114-disk-0.qcow2",
                                        "qcow2",
                                        16114,
                                        "../9004/base-9004-disk-0.qcow2"),
                                image(
                                        "local:9004/base-9004-disk-1.qcow2/16114/vm-16114-disk-1.qcow2",
                                        "qcow2",
                                        16114,
                                        "../9004/base-9004-disk-1.qcow2"))),
                Arguments.of(
                        "VMID: 9004, VM, template, qcow2",
                        9004,
                        List.of("images/9004/base-9004-disk-0.qcow2", "images/9004/base-9004-disk-1.qcow2"),
                        List.of(),
                        List.of(
                                image("local:9004/base-9004-disk-0.qcow2", "qcow2", 9004, null),
                                image("local:9004/base-9004-disk-1.qcow2", "qcow2", 9004, null))),
                Arguments.of(
                        "VMID: none, templates, snippets, backup",
                        null,
                        List.of(
                                "dump/vzdump-lxc-19253-2020_02_03-19_57_43.tar.gz",
                                "dump/vzdump-lxc-19254-2019_01_21-19_29_19.tar",
                                "template/iso/archlinux-2020.02.01-x86_64.iso",
                                "template/iso/debian-8.11.1-amd64-DVD-1.iso",
                                "template/iso/debian-9.12.0-amd64-netinst.iso",
                                "template/iso/proxmox-ve_6.1-1.iso",
                                "template/cache/archlinux-base_20190924-1_amd64.tar.gz",
                                "template/cache/debian-10.0-standard_10.0-1_amd64.tar.gz",
                                "template/cache/debian-11.0-standard_11.0-1_amd64.tar.bz2",
                                "template/cache/alpine-3.10-default_20190626_amd64.tar.xz",
                                "snippets/userconfig.yaml",
                                "snippets/hookscript.pl",
                                "private/1234/",
                                "private/1234/subvol-1234-disk-0.subvol/"),
                        List.of(),
                        List.of(
                                file(
                                        ContentType.VZTMPL,
                                        "local:vztmpl/alpine-3.10-default_20190626_amd64.tar.xz",
                                        "txz"),
                                file(ContentType.VZTMPL, "local:vztmpl/archlinux-base_20190924-1_amd64.tar.gz", "tgz"),
                                file(
                                        ContentType.VZTMPL,
                                        "local:vztmpl/debian-10.0-standard_10.0-1_amd64.tar.gz",
                                        "tgz"),
                                file(
                                        ContentType.VZTMPL,
                                        "local:vztmpl/debian-11.0-standard_11.0-1_amd64.tar.bz2",
                                        "tbz2"),
                                file(ContentType.ISO, "local:iso/archlinux-2020.02.01-x86_64.iso", "iso"),
                                file(ContentType.ISO, "local:iso/debian-8.11.1-amd64-DVD-1.iso", "iso"),
                                file(ContentType.ISO, "local:iso/debian-9.12.0-amd64-netinst.iso", "iso"),
                                file(ContentType.ISO, "local:iso/proxmox-ve_6.1-1.iso", "iso"),
                                backup(
                                        "local:backup/vzdump-lxc-19253-2020_02_03-19_57_43.tar.gz",
                                        "tar.gz",
                                        19253,
                                        "lxc",
                                        1580759863),
                                backup(
                                        "local:backup/vzdump-lxc-19254-2019_01_21-19_29_19.tar",
                                        "tar",
                                        19254,
                                        "lxc",
                                        1548098959),
                                file(ContentType.SNIPPETS, "local:snippets/hookscript.pl", "snippet"),
                                file(ContentType.SNIPPETS, "local:snippets/userconfig.yaml", "snippet"))),
                Arguments.of(
                        "VMID: none, parent, non-matching",
                        null,
                        List.of("images/1234/vm-1234-disk-0.qcow2"),
                        List.of("../ssss/base-4321-disk-0.qcow2"),
                        List.of(image(
                                "local:1234/vm-1234-disk-0.qcow2", "qcow2", 1234, "../ssss/base-4321-disk-0.qcow2"))),
                Arguments.of(
                        "VMID: none, non-matching",
                        null,
                        List.of(
                                "images/ssss/base-4321-disk-0.raw",
                                "images/ssss/vm-1234-disk-0.qcow2",
                                "template/iso/yet-again-a-installation-disk.dvd",
                                "template/cache/debian-10.0-standard_10.0-1_amd64.zip.gz",
                                "private/subvol-19254-disk-0/19254",
                                "dump/vzdump-openvz-16112-2020_03_30-21_39_30.zip.gz",
                                "dump/vzdump-openvz-16112-2020_03_30-21_39_30.tgz.lzo",
                                "dump/vzdump-qemu-16110-2020_03_30-21_12_40.vma.xz",
                                "dump/vzdump-qemu-16110-2020_03_30-21_12_40.vms.gz"),
                        List.of(),
                        List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void pveCases(String description, Integer vmid, List<String> files, List<String> parents, List<Row> expected) {
        long start = Instant.now().getEpochSecond();
        makeWithQemuImg(files, parents);
        TestStorage t = TestStorage.in(root);

        List<VolumeInfo> listed = t.storage.listVolumes(vmid, TYPES);

        assertThat(listed).map(Row::of).containsExactlyElementsOf(expected);
        long now = Instant.now().getEpochSecond();
        for (VolumeInfo v : listed) {
            if (v.content() == ContentType.IMAGES) {
                assertThat(v.used())
                        .as("allocation of %s", v.volid())
                        .isNotNull()
                        .isPositive();
            }
            if (v.content() != ContentType.BACKUP) {
                assertThat(v.ctime()).as("ctime of %s", v.volid()).isBetween(start - 1, now + 1);
            }
        }
    }

    /** As pve's test: {@code qemu-img create <file> 131072 [-f <ext>] [-u -b <parent> -F <ext>]}; names ending in '/' are directories. */
    private void makeWithQemuImg(List<String> files, List<String> parents) {
        int parent = 0;
        for (String f : files) {
            Path path = root.resolve(f);
            try {
                Files.createDirectories(f.endsWith("/") ? path : path.getParent());
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            if (f.endsWith("/")) {
                continue;
            }
            List<String> argv = new ArrayList<>(
                    List.of("/usr/bin/qemu-img", "create", path.toString(), Long.toString(DEFAULT_SIZE)));
            String ext = f.substring(f.lastIndexOf('.') + 1);
            boolean image = List.of("qcow2", "raw", "vmdk", "vhdx").contains(ext);
            if (image) {
                argv.addAll(List.of("-f", ext));
            }
            if (!parents.isEmpty()) {
                argv.addAll(List.of("-u", "-b", parents.get(parent++)));
                if (image) {
                    argv.addAll(List.of("-F", ext));
                }
            }
            TestStorage.run(argv.toArray(String[]::new));
        }
    }

    // --- beyond pve's test

    @Test
    void isoAndTemplatesAreNotListedForAGuest() throws IOException {
        write("template/iso/a.iso", "template/cache/ct.tar.zst", "dump/vzdump-qemu-100-2020_03_30-21_11_40.vma");
        TestStorage t = TestStorage.in(root);
        assertThat(t.storage.listVolumes(100, TYPES))
                .map(VolumeInfo::volid)
                .containsExactly("local:backup/vzdump-qemu-100-2020_03_30-21_11_40.vma");
        assertThat(t.storage.listVolumes(null, TYPES)).hasSize(3);
    }

    @Test
    void backupsOfOtherGuestsAreNotListedForAGuest() throws IOException {
        write(
                "dump/vzdump-qemu-100-2020_03_30-21_11_40.vma",
                "dump/vzdump-qemu-1000-2020_03_30-21_11_40.vma",
                "dump/custom-100-backup.vma.zst");
        TestStorage t = TestStorage.in(root);
        List<VolumeInfo> listed = t.storage.listVolumes(100, EnumSet.of(ContentType.BACKUP));
        assertThat(listed)
                .map(VolumeInfo::volid)
                .containsExactly(
                        "local:backup/custom-100-backup.vma.zst",
                        "local:backup/vzdump-qemu-100-2020_03_30-21_11_40.vma");
        assertThat(listed.get(0).backup().subtype()).isEqualTo("unknown");
        assertThat(listed.get(0).vmid()).isEqualTo(100);
    }

    @Test
    void backupNotesAndProtection() throws IOException {
        write("dump/vzdump-qemu-100-2020_03_30-21_11_40.vma.zst", "dump/vzdump-qemu-101-2020_03_30-21_11_40.vma.zst");
        Files.writeString(
                root.resolve("dump/vzdump-qemu-100-2020_03_30-21_11_40.vma.zst.notes"),
                "before the upgrade – ok\nsecond line\n");
        Files.writeString(root.resolve("dump/vzdump-qemu-100-2020_03_30-21_11_40.vma.zst.protected"), "");
        TestStorage t = TestStorage.in(root);

        List<VolumeInfo> listed = t.storage.listVolumes(null, EnumSet.of(ContentType.BACKUP));

        assertThat(listed)
                .map(VolumeInfo::backup)
                .containsExactly(
                        BackupDetails.of("qemu", "before the upgrade – ok", true),
                        BackupDetails.of("qemu", null, false));
    }

    @Test
    void importSources() throws IOException {
        write("import/appliance.ova", "import/disk.qcow2", "import/vm.ovf", "import/notes.txt", "import/My Disk.raw");
        TestStorage t = TestStorage.in(root);
        assertThat(t.storage.listVolumes(null, EnumSet.of(ContentType.IMPORT)))
                .extracting(VolumeInfo::volid, VolumeInfo::format)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("local:import/appliance.ova", "ova"),
                        org.assertj.core.groups.Tuple.tuple("local:import/disk.qcow2", "qcow2"),
                        org.assertj.core.groups.Tuple.tuple("local:import/vm.ovf", "ovf"));
    }

    @Test
    void listingFollowsContentDirs() throws IOException {
        write("isos/a.iso", "template/iso/b.iso");
        TestStorage t = TestStorage.in(root, java.util.Map.of("content-dirs", List.of("iso=isos")));
        assertThat(t.storage.listVolumes(null, EnumSet.of(ContentType.ISO)))
                .map(VolumeInfo::volid)
                .containsExactly("local:iso/a.iso");
    }

    @Test
    void anImageInTheWrongFormatIsListedAsInvalid() throws IOException {
        write("images/100/vm-100-disk-0.qcow2");
        TestStorage t = TestStorage.in(root);

        List<VolumeInfo> images = t.storage.listImages(null);

        assertThat(images)
                .extracting(VolumeInfo::volid, VolumeInfo::format)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("local:100/vm-100-disk-0.qcow2", "invalid"));
        assertThat(t.console.warnings)
                .containsExactly("image '" + root.resolve("images/100/vm-100-disk-0.qcow2")
                        + "' is not in expected format 'qcow2', querying as raw");
    }

    @Test
    void snapshotFilesDanglingLinksAndMisplacedDirectoriesAreSkipped() throws IOException {
        write(
                "images/100/vm-100-disk-0.raw",
                "images/100/snap-s1-vm-100-disk-0.qcow2",
                "images/0100/vm-100-disk-1.raw",
                "images/100/.vm-100-disk-9.raw");
        Files.createDirectories(root.resolve("images/100/vm-100-disk-2.raw"));
        Files.createSymbolicLink(root.resolve("images/100/vm-100-disk-3.raw"), root.resolve("nowhere"));
        TestStorage t = TestStorage.in(root);

        assertThat(t.storage.listImages(null)).map(VolumeInfo::volid).containsExactly("local:100/vm-100-disk-0.raw");
        assertThat(t.console.warnings)
                .containsExactly(
                        "expected format 'raw', but '" + root.resolve("images/100/vm-100-disk-2.raw")
                                + "' is a directory",
                        "skipping '" + root.resolve("images/100/vm-100-disk-3.raw") + "': '"
                                + root.resolve("images/100/vm-100-disk-3.raw") + "' is a symbolic link (to '"
                                + root.resolve("nowhere") + "') (vsm does not follow symbolic links inside a storage)");
    }

    @Test
    void imagesOfAnImagesDirectoryLinkedOutOfTheStorageAreSkippedAndOfOneLinkedInsideListed() throws IOException {
        Path store = root.resolve("store");
        Path outside = root.resolve("outside");
        Files.createDirectories(store);
        Files.createDirectories(outside.resolve("100"));
        Files.write(outside.resolve("100/vm-100-disk-0.raw"), new byte[512]);
        Files.createSymbolicLink(store.resolve("images"), outside);
        TestStorage out = TestStorage.in(store);
        assertThat(out.storage.listImages(null)).isEmpty();
        assertThat(out.console.warnings)
                .containsExactly("skipping '" + store.resolve("images/100/vm-100-disk-0.raw") + "': '"
                        + store.resolve("images") + "' is a symbolic link to '" + outside
                        + "', outside the storage's directory '" + store
                        + "' (vsm does not follow symbolic links inside a storage)");

        Files.delete(store.resolve("images"));
        Files.move(outside, store.resolve("real-images"));
        Files.createSymbolicLink(store.resolve("images"), Path.of("real-images"));
        TestStorage in = TestStorage.in(store);
        assertThat(in.storage.listImages(null)).map(VolumeInfo::volid).containsExactly("local:100/vm-100-disk-0.raw");
        assertThat(in.console.warnings).isEmpty();
    }

    @Test
    void subvolsAreListedWithoutQemuImg() throws IOException {
        Files.createDirectories(root.resolve("images/101/subvol-101-disk-0.subvol/etc"));
        TestStorage t = TestStorage.in(root);
        assertThat(t.storage.listImages(101))
                .extracting(VolumeInfo::volid, VolumeInfo::format, VolumeInfo::size)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("local:101/subvol-101-disk-0.subvol", "subvol", 0L));
    }

    @Test
    void anEmptyStorageListsNothing() {
        TestStorage t = TestStorage.in(root.resolve("never-made"));
        assertThat(t.storage.listVolumes(null, EnumSet.allOf(ContentType.class)))
                .isEmpty();
    }

    private void write(String... files) throws IOException {
        for (String f : files) {
            Path path = root.resolve(f);
            Files.createDirectories(path.getParent());
            Files.write(path, new byte[0]);
        }
    }
}
