package dev.vsm.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * pve's {@code get_subdir_test.pm} and {@code filesystem_path_test.pm} (every case), the
 * {@code content-dirs} rules, and the path-only half of {@code path_to_volume_id_test.pm}
 * (the image cases need real images and are in the dir plugin's tests).
 */
class DirLayoutTest {
    private static final DirLayout SOME_PATH = new DirLayout(Path.of("/some/path"), Map.of());

    // --- get_subdir_test.pm

    @ParameterizedTest
    @EnumSource(value = ContentType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void subdirDefaults(ContentType type) {
        assertThat(SOME_PATH.subdir(type))
                .isEqualTo(Path.of("/some/path/" + type.defaultSubdir().orElseThrow()));
    }

    @ParameterizedTest
    @EnumSource(value = ContentType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void subdirOverrides(ContentType type) {
        DirLayout layout = new DirLayout(Path.of("/some/path"), Map.of(type, type.id() + "_override"));
        assertThat(layout.subdir(type)).isEqualTo(Path.of("/some/path/" + type.id() + "_override"));
    }

    @Test
    void noneHasNoSubdir() {
        assertThatThrownBy(() -> SOME_PATH.subdir(ContentType.NONE)).hasMessage("unknown vtype 'none'");
    }

    @Test
    void aStorageWithoutPathHasNoLayout() {
        assertThatThrownBy(() -> DirLayout.of(new StorageConfig("local", "dir", Map.of())))
                .hasMessage("storage definition has no path");
    }

    @Test
    void layoutFromConfig() {
        DirLayout layout = DirLayout.of(new StorageConfig(
                "local", "dir", Map.of("path", "/srv/vz/", "content-dirs", List.of("iso=isos", "backup=/backups"))));
        assertThat(layout.subdir(ContentType.ISO)).isEqualTo(Path.of("/srv/vz/isos"));
        assertThat(layout.subdir(ContentType.BACKUP))
                .as("pve joins '<path>/<dir>'")
                .isEqualTo(Path.of("/srv/vz/backups"));
        assertThat(layout.subdir(ContentType.IMAGES)).isEqualTo(Path.of("/srv/vz/images"));
        assertThat(layout.imageDir(100)).isEqualTo(Path.of("/srv/vz/images/100"));
    }

    // --- filesystem_path_test.pm

    static Stream<Arguments> filesystemPaths() {
        return Stream.of(
                Arguments.of(
                        "1234/vm-1234-disk-0.raw",
                        null,
                        "/some/path/images/1234/vm-1234-disk-0.raw",
                        1234,
                        ContentType.IMAGES),
                Arguments.of(
                        "1234/vm-1234-disk-0.qcow2",
                        null,
                        "/some/path/images/1234/vm-1234-disk-0.qcow2",
                        1234,
                        ContentType.IMAGES),
                Arguments.of(
                        "1234/vm-1234-disk-0.qcow2",
                        "my_snap",
                        "/some/path/images/1234/vm-1234-disk-0.qcow2",
                        1234,
                        ContentType.IMAGES),
                Arguments.of(
                        "iso/my-awesome-proxmox.iso",
                        null,
                        "/some/path/template/iso/my-awesome-proxmox.iso",
                        null,
                        ContentType.ISO),
                Arguments.of(
                        "backup/vzdump-qemu-1234-2020_03_30-21_12_40.vma",
                        null,
                        "/some/path/dump/vzdump-qemu-1234-2020_03_30-21_12_40.vma",
                        1234,
                        ContentType.BACKUP),
                // not in pve's test: a linked clone lives in its own guest's directory
                Arguments.of(
                        "100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2",
                        null,
                        "/some/path/images/101/vm-101-disk-0.qcow2",
                        101,
                        ContentType.IMAGES));
    }

    @ParameterizedTest(name = "{0} @ {1}")
    @MethodSource
    void filesystemPaths(String volname, String snapshot, String path, Integer vmid, ContentType type) {
        var volume = DirVolumeNames.parse(volname);
        assertThat(SOME_PATH.path(volume, snapshot)).isEqualTo(Path.of(path));
        assertThat(volume.vmid()).isEqualTo(vmid);
        assertThat(volume.type()).isEqualTo(type);
    }

    @Test
    void rawImagesHaveNoSnapshots() {
        var volume = DirVolumeNames.parse("1234/vm-1234-disk-0.raw");
        assertThatThrownBy(() -> SOME_PATH.path(volume, "my_snap")).hasMessage("can't snapshot this image format");
    }

    // --- content-dirs (pve's verify_dir_override)

    @Test
    void contentDirsParse() {
        assertThat(DirLayout.parseContentDirs(List.of("iso=isos/linux", "images=.hidden/img", "backup=a.b/c")))
                .isEqualTo(Map.of(
                        ContentType.ISO, "isos/linux", ContentType.IMAGES, ".hidden/img", ContentType.BACKUP, "a.b/c"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "iso",
                "iso=",
                "=isos",
                "ISO=isos",
                "iso=../up",
                "iso=a/../b",
                "iso=isos.",
                "iso=.",
                "none=nothing"
            })
    void badContentDirs(String entry) {
        assertThatThrownBy(() -> DirLayout.parseContentDirs(List.of(entry)))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessage("invalid override '" + entry + "'");
    }

    @Test
    void contentDirsOfUnknownTypes() {
        assertThatThrownBy(() -> DirLayout.parseContentDirs(List.of("movies=films")))
                .hasMessage("invalid content type 'movies'");
    }

    @Test
    void contentDirsLengthLimits() {
        String component = "a".repeat(254);
        assertThat(DirLayout.parseContentDirs(List.of("iso=" + component))).containsEntry(ContentType.ISO, component);
        assertThatThrownBy(() -> DirLayout.parseContentDirs(List.of("iso=" + component + "a")))
                .hasMessageStartingWith("invalid override");
        String longPath = (component + "/").repeat(4) + "a".repeat(1022 - 4 * 255);
        assertThat(longPath).hasSize(1022);
        assertThat(DirLayout.parseContentDirs(List.of("iso=" + longPath))).containsKey(ContentType.ISO);
        assertThatThrownBy(() -> DirLayout.parseContentDirs(List.of("iso=" + longPath + "a")))
                .hasMessageStartingWith("invalid override");
    }

    @Test
    void contentDirsDoNotBacktrackForever() {
        String entry = "iso=" + "a".repeat(5000) + "..";
        assertThatThrownBy(() -> DirLayout.parseContentDirs(List.of(entry))).hasMessageStartingWith("invalid override");
    }

    // --- path_to_volume_id_test.pm, the cases decided by the path alone

    static Stream<Arguments> pathsToVolumes() {
        String d = "/var/lib/vz";
        return Stream.of(
                Arguments.of(
                        d + "/dump/vzdump-qemu-16110-2020_03_30-21_11_40.vma.gz",
                        ContentType.BACKUP,
                        "backup/vzdump-qemu-16110-2020_03_30-21_11_40.vma.gz"),
                Arguments.of(
                        d + "/dump/vzdump-qemu-16110-2020_03_30-21_12_45.vma.lzo",
                        ContentType.BACKUP,
                        "backup/vzdump-qemu-16110-2020_03_30-21_12_45.vma.lzo"),
                Arguments.of(
                        d + "/dump/vzdump-qemu-16110-2020_03_30-21_13_55.vma",
                        ContentType.BACKUP,
                        "backup/vzdump-qemu-16110-2020_03_30-21_13_55.vma"),
                Arguments.of(
                        d + "/dump/vzdump-lxc-16112-2020_03_30-21_39_30.tar.lzo",
                        ContentType.BACKUP,
                        "backup/vzdump-lxc-16112-2020_03_30-21_39_30.tar.lzo"),
                Arguments.of(
                        d + "/dump/vzdump-qemu-16110-2020_03_30-21_13_55.vma.zst",
                        ContentType.BACKUP,
                        "backup/vzdump-qemu-16110-2020_03_30-21_13_55.vma.zst"),
                Arguments.of(
                        d + "/dump/vzdump-lxc-16112-2020_03_30-21_39_30.tar.zst",
                        ContentType.BACKUP,
                        "backup/vzdump-lxc-16112-2020_03_30-21_39_30.tar.zst"),
                Arguments.of(
                        d + "/dump/vzdump-openvz-16112-2020_03_30-21_39_30.tar.bz2",
                        ContentType.BACKUP,
                        "backup/vzdump-openvz-16112-2020_03_30-21_39_30.tar.bz2"),
                Arguments.of(
                        d + "/template/iso/yet-again-a-installation-disk.iso",
                        ContentType.ISO,
                        "iso/yet-again-a-installation-disk.iso"),
                Arguments.of(
                        d + "/template/cache/debian-10.0-standard_10.0-1_amd64.tar.gz",
                        ContentType.VZTMPL,
                        "vztmpl/debian-10.0-standard_10.0-1_amd64.tar.gz"),
                Arguments.of(
                        d + "/template/cache/debian-10.0-standard_10.0-1_amd64.tar.bz2",
                        ContentType.VZTMPL,
                        "vztmpl/debian-10.0-standard_10.0-1_amd64.tar.bz2"),
                Arguments.of(
                        d + "/template/cache/debian-10.0-standard_10.0-1_amd64.tar.xz",
                        ContentType.VZTMPL,
                        "vztmpl/debian-10.0-standard_10.0-1_amd64.tar.xz"),
                Arguments.of(d + "/snippets/userconfig.yaml", ContentType.SNIPPETS, "snippets/userconfig.yaml"),
                Arguments.of(d + "/snippets/hookscript.pl", ContentType.SNIPPETS, "snippets/hookscript.pl"),
                Arguments.of(d + "/import/import.ova", ContentType.IMPORT, "import/import.ova"),
                Arguments.of(d + "/import/import.ovf", ContentType.IMPORT, "import/import.ovf"),
                // images: only the candidate name; the plugin confirms it from its image list
                Arguments.of(
                        d + "/images/16110/vm-16110-disk-0.qcow2", ContentType.IMAGES, "16110/vm-16110-disk-0.qcow2"),
                Arguments.of(
                        d + "/images/1234/subvol-1234-disk-0.subvol/",
                        ContentType.IMAGES,
                        "1234/subvol-1234-disk-0.subvol"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void pathsToVolumes(String path, ContentType type, String volname) {
        DirLayout layout = new DirLayout(Path.of("/var/lib/vz"), Map.of());
        assertThat(layout.volumeForPath(Path.of(path))).contains(new PathVolume(type, volname));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/var/lib/vz/images/ssss/base-4321-disk-0.raw",
                "/var/lib/vz/template/iso/yet-again-a-installation-disk.dvd",
                "/var/lib/vz/template/cache/debian-10.0-standard_10.0-1_amd64.zip.gz",
                "/var/lib/vz/dump/vzdump-openvz-16112-2020_03_30-21_39_30.zip.gz",
                "/var/lib/vz/dump/vzdump-openvz-16112-2020_03_30-21_39_30.tgz.lzo",
                "/var/lib/vz/dump/vzdump-qemu-16110-2020_03_30-21_12_40.vma.xz",
                "/var/lib/vz/dump/vzdump-qemu-16110-2020_03_30-21_12_40.vms.gz",
                "/var/lib/vz/images/ssss/vm-1234-disk-0.qcow2",
                "/var/lib/vz/import/test.foo",
                // not in pve's test
                "/var/lib/vz/images/100/sub/vm-100-disk-0.raw",
                "/var/lib/vz/snippets/sub/hook.pl",
                "/var/lib/vz/import/with space.ova",
                "/var/lib/vzz/snippets/hook.pl",
                "/elsewhere/x.iso"
            })
    void pathsThatAreNoVolumes(String path) {
        DirLayout layout = new DirLayout(Path.of("/var/lib/vz"), Map.of());
        assertThat(layout.volumeForPath(Path.of(path))).isEqualTo(Optional.empty());
    }

    @Test
    void pathsFollowContentDirs() {
        DirLayout layout = new DirLayout(Path.of("/var/lib/vz"), Map.of(ContentType.ISO, "isos"));
        assertThat(layout.volumeForPath(Path.of("/var/lib/vz/isos/a.iso")))
                .contains(new PathVolume(ContentType.ISO, "iso/a.iso"));
        assertThat(layout.volumeForPath(Path.of("/var/lib/vz/template/iso/a.iso")))
                .isEmpty();
    }
}
