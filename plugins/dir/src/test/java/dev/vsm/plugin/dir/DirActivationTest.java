package dev.vsm.plugin.dir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Activation and status (pve DirPlugin/Plugin activate_storage and status). */
class DirActivationTest {
    @TempDir
    Path root;

    @Test
    void activationMakesThePathAndTheDefaultContentDirectories() {
        Path path = root.resolve("vz");
        TestStorage.in(path).storage.activate();
        // default content images,rootdir: rootdir brings the backup directory along, as in pve
        assertThat(TestStorage.tree(path)).containsExactly("dump/", "images/", "private/");
    }

    @Test
    void activationMakesADirectoryPerConfiguredContent() {
        TestStorage t = TestStorage.in(
                root, Map.of("content", List.of("images", "rootdir", "iso", "vztmpl", "backup", "snippets", "import")));
        t.storage.activate();
        assertThat(TestStorage.tree(root))
                .containsExactly(
                        "dump/",
                        "images/",
                        "import/",
                        "private/",
                        "snippets/",
                        "template/",
                        "template/cache/",
                        "template/iso/");
    }

    @Test
    void activationFollowsContentDirs() {
        TestStorage t =
                TestStorage.in(root, Map.of("content", List.of("iso"), "content-dirs", List.of("iso=media/isos")));
        t.storage.activate();
        assertThat(TestStorage.tree(root)).containsExactly("media/", "media/isos/");
    }

    @Test
    void activateAndStatusActivatesAndMeasuresInOneCall() {
        Path path = root.resolve("vz");
        TestStorage t = TestStorage.in(path);
        StorageStatus status = t.storage.activateAndStatus();
        assertThat(TestStorage.tree(path)).containsExactly("dump/", "images/", "private/");
        assertThat(status.active()).isTrue();
        assertThat(status.total()).isEqualTo(t.storage.status().total()).isPositive();
    }

    @Test
    void activateAndStatusFailsAsActivationDoes() {
        Path path = root.resolve("vz");
        TestStorage t = TestStorage.in(path, Map.of("mkdir", false));
        assertThatThrownBy(t.storage::activateAndStatus)
                .hasMessage("unable to activate storage 'local' - directory '" + path
                        + "' does not exist or is unreachable");
        assertThat(path).doesNotExist();
    }

    @Test
    void createSubdirsOffMakesOnlyThePath() {
        Path path = root.resolve("vz");
        TestStorage.in(path, Map.of("create-subdirs", false)).storage.activate();
        assertThat(path).isEmptyDirectory();
    }

    @Test
    void mkdirOffMakesNothing() {
        Path path = root.resolve("vz");
        TestStorage t = TestStorage.in(path, Map.of("mkdir", false));
        assertThatThrownBy(t.storage::activate)
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FAILED))
                .hasMessage("unable to activate storage 'local' - directory '" + path
                        + "' does not exist or is unreachable");
        assertThat(path).doesNotExist();
    }

    @Test
    void createBasePathOffRefusesAMissingPath() {
        Path path = root.resolve("vz");
        assertThatThrownBy(TestStorage.in(path, Map.of("create-base-path", false)).storage::activate)
                .hasMessage("unable to activate storage 'local' - directory '" + path
                        + "' does not exist or is unreachable");
    }

    @Test
    void twoContentTypesMayNotShareADirectory() {
        TestStorage t = TestStorage.in(
                root,
                Map.of(
                        "content",
                        List.of("iso", "vztmpl"),
                        "content-dirs",
                        List.of("iso=templates", "vztmpl=templates")));
        assertThatThrownBy(t.storage::activate)
                .hasMessage(
                        "storage 'local' uses directory " + root.resolve("templates") + " for multiple content types");
    }

    @Test
    void aSymbolicLinkCannotMakeTwoContentTypesShareADirectory() throws IOException {
        Path iso = Files.createDirectories(root.resolve("template/iso"));
        Files.createSymbolicLink(root.resolve("template/cache"), iso);
        TestStorage t = TestStorage.in(root, Map.of("content", List.of("iso", "vztmpl")));
        assertThatThrownBy(t.storage::activate)
                .hasMessage("storage 'local' uses directory " + iso.toRealPath() + " for multiple content types");
    }

    @Test
    void anUnmountedMountPointStopsActivationAndMakesTheStorageInactive() throws IOException {
        Path mounts = root.resolve("mounts");
        Files.writeString(mounts, "/dev/vda / ext4 rw 0 0\n");
        Path path = Files.createDirectories(root.resolve("mnt/data"));
        TestStorage t = TestStorage.withMounts(path, Map.of("is_mountpoint", "yes"), mounts);

        assertThatThrownBy(t.storage::activate)
                .hasMessage(
                        "unable to activate storage 'local' - directory is expected to be a mount point but is not mounted: '"
                                + path + "'");
        assertThat(t.storage.status()).isEqualTo(StorageStatus.INACTIVE);
        assertThat(path).isEmptyDirectory();
    }

    @Test
    void aMountedMountPointIsFine() throws IOException {
        Path path = Files.createDirectories(root.resolve("mnt/my data"));
        Path mounts = root.resolve("mounts");
        Files.writeString(
                mounts,
                "/dev/vda / ext4 rw 0 0\n/dev/vdb "
                        + path.toRealPath().toString().replace(" ", "\\040") + " xfs rw 0 0\n");

        TestStorage yes = TestStorage.withMounts(path, Map.of("is_mountpoint", "on"), mounts);
        yes.storage.activate();
        assertThat(yes.storage.status().active()).isTrue();

        Path inside = Files.createDirectories(path.resolve("vz"));
        TestStorage other = TestStorage.withMounts(inside, Map.of("is_mountpoint", path.toString()), mounts);
        other.storage.activate();
        assertThat(TestStorage.tree(inside)).contains("images/");
    }

    @Test
    void isMountpointNoChecksNothing() throws IOException {
        Path mounts = root.resolve("mounts");
        Files.writeString(mounts, "");
        TestStorage.withMounts(root.resolve("vz"), Map.of("is_mountpoint", "no"), mounts)
                .storage
                .activate();
        assertThat(root.resolve("vz")).isDirectory();
    }

    @Test
    void realProcMountsKnowsTheRootFileSystem() {
        assertThat(new MountTable(MountTable.PROC_MOUNTS).isMounted(Path.of("/")))
                .isTrue();
        assertThat(new MountTable(MountTable.PROC_MOUNTS).isMounted(root)).isFalse();
    }

    @Test
    void statusReportsTheFileSystemInBytes() throws IOException {
        TestStorage t = TestStorage.in(root);
        StorageStatus status = t.storage.status();
        var store = Files.getFileStore(root);

        assertThat(status.active()).isTrue();
        assertThat(status.total()).isEqualTo(store.getTotalSpace());
        assertThat(status.used()).isPositive().isLessThanOrEqualTo(status.total());
        assertThat(status.avail()).isPositive().isLessThanOrEqualTo(status.total() - status.used());
    }

    @Test
    void aMissingPathIsInactive() {
        assertThat(TestStorage.in(root.resolve("missing")).storage.status()).isEqualTo(StorageStatus.INACTIVE);
    }

    @Test
    void dryRunActivationPrintsWhatItWouldMake() {
        Path path = root.resolve("vz");
        TestStorage t = TestStorage.dryRun(path, Map.of());
        t.storage.activate();
        assertThat(path).doesNotExist();
        assertThat(t.console.infos)
                .containsExactly(
                        "+ mkdir -p " + path,
                        "+ mkdir -p " + path + "/dump",
                        "+ mkdir -p " + path + "/images",
                        "+ mkdir -p " + path + "/private");
    }
}
