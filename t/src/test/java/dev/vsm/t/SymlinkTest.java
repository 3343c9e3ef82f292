package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Images;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Symbolic links planted inside a dir storage lead nowhere: vsm never creates, deletes, resizes,
 * chmods or reads a file outside the storage's directory through them. A volume reached through
 * such a link is bad input (exit 2, one line) for every command, and {@code list} skips it with a
 * warning; the files outside (canaries) keep their content, size, mode and time. A storage
 * {@code path} that is itself a link (a storage on another disk), and a content directory linked
 * to another place inside the storage, work as before.
 */
class SymlinkTest {
    @TempDir
    Path root;

    private Path store;
    private Path outside;
    private Vsm vsm;
    private Map<String, String> outsideBefore;

    @BeforeEach
    void setUp() throws Exception {
        store = root.resolve("store");
        outside = Files.createDirectories(root.resolve("elsewhere"));
        Path sandbox = Files.createDirectories(root.resolve("sandbox"));
        vsm = new Vsm(sandbox).writeConfig("""
                storages:
                  st:
                    type: dir
                    path: %s
                    content: [images, iso]
                """.formatted(store));
        vsm.run("alloc", "st", "100", "vm-100-disk-0.raw", "1M").ok(); // makes the storage's directories
        Path raw = Images.raw(Files.createDirectories(root.resolve("sources")), "disk.raw", 1, 3);
        Files.copy(raw, outside.resolve("vm-300-disk-0.raw"));
        Files.copy(raw, outside.resolve("canary.raw"));
        Files.writeString(outside.resolve("canary.iso"), "iso canary");
        Files.createSymbolicLink(store.resolve("images/300"), outside);
        Files.createDirectories(store.resolve("images/301"));
        Files.createSymbolicLink(store.resolve("images/301/vm-301-disk-0.raw"), outside.resolve("canary.raw"));
        Files.createSymbolicLink(store.resolve("template/iso/linked.iso"), outside.resolve("canary.iso"));
        outsideBefore = Tree.snapshot(outside);
        outsideBefore.put("canary.raw bytes", sha256(outside.resolve("canary.raw")));
    }

    @AfterEach
    void nothingOutsideChanged() {
        Map<String, String> now = Tree.snapshot(outside);
        now.put("canary.raw bytes", sha256(outside.resolve("canary.raw")));
        assertThat(now).as("the files outside the storage").isEqualTo(outsideBefore);
        vsm.releaseImmutable();
    }

    private static String sha256(Path file) {
        return Images.run("sha256sum", file.toString()).split(" ")[0];
    }

    private void refused(String link, String... args) {
        vsm.run(args)
                .badInput("' is a symbolic link")
                .badInput("'" + store.resolve(link) + "'")
                .badInput("vsm does not follow symbolic links inside a storage");
    }

    @Test
    void anOwnerDirectoryLinkedOutsideIsNeitherWrittenNorRemoved() {
        refused("images/300", "alloc", "st", "300", "vm-300-disk-1.raw", "1M");
        refused("images/300", "alloc", "st", "300", "", "1M");
        refused("images/300", "free", "st:300/vm-300-disk-0.raw");
        refused("images/300", "path", "st:300/vm-300-disk-0.raw");
        refused("images/300", "info", "st:300/vm-300-disk-0.raw");
        refused(
                "images/300",
                "import",
                "st",
                "300",
                root.resolve("sources/disk.raw").toString(),
                "-q");
        refused("images/300", "rename", "st:100/vm-100-disk-0.raw", "300");
        Path stream = root.resolve("disk.stream");
        vsm.run("export", "st:100/vm-100-disk-0.raw", "raw+size", stream.toString(), "-q")
                .ok();
        refused("images/300", "import-stream", "st:300/vm-300-disk-1.raw", "raw+size", stream.toString());
        assertThat(store.resolve("images/100/vm-100-disk-0.raw"))
                .as("the renamed volume stayed")
                .isRegularFile();
    }

    @Test
    void anImageThatIsALinkIsNeitherReadNorChanged() throws Exception {
        String volid = "st:301/vm-301-disk-0.raw";
        Path export = root.resolve("exported");
        refused("images/301/vm-301-disk-0.raw", "export", volid, "raw+size", export.toString());
        assertThat(export).doesNotExist();
        refused("images/301/vm-301-disk-0.raw", "resize", volid, "1G");
        refused("images/301/vm-301-disk-0.raw", "resize", volid, "+1M");
        refused("images/301/vm-301-disk-0.raw", "create-base", volid);
        refused("images/301/vm-301-disk-0.raw", "info", volid);
        refused("images/301/vm-301-disk-0.raw", "path", volid);
        refused("images/301/vm-301-disk-0.raw", "free", volid);
        refused("images/301/vm-301-disk-0.raw", "copy", volid, "st", "--vmid", "100");
        refused("images/301/vm-301-disk-0.raw", "rename", volid, "302");
        refused("template/iso/linked.iso", "path", "st:iso/linked.iso");
        refused("template/iso/linked.iso", "info", "st:iso/linked.iso");
        refused("template/iso/linked.iso", "free", "st:iso/linked.iso");
        assertThat(Files.isSymbolicLink(store.resolve("images/301/vm-301-disk-0.raw")))
                .as("the link is left to the admin")
                .isTrue();
    }

    @Test
    void listSkipsThemWithAWarning() {
        Vsm.Result r = vsm.run("list", "st").ok();
        assertThat(r.out())
                .contains("st:100/vm-100-disk-0.raw")
                .doesNotContain("300")
                .doesNotContain("301")
                .doesNotContain("linked");
        assertThat(r.err().lines())
                .containsExactlyInAnyOrder(
                        "skipping '" + store.resolve("images/300/canary.raw") + "': '" + store.resolve("images/300")
                                + "' is a symbolic link to '" + outside + "', outside the storage's directory '" + store
                                + "' (vsm does not follow symbolic links inside a storage)",
                        "skipping '" + store.resolve("images/300/vm-300-disk-0.raw") + "': '"
                                + store.resolve("images/300")
                                + "' is a symbolic link to '" + outside + "', outside the storage's directory '" + store
                                + "' (vsm does not follow symbolic links inside a storage)",
                        "skipping '" + store.resolve("images/301/vm-301-disk-0.raw") + "': '"
                                + store.resolve("images/301/vm-301-disk-0.raw") + "' is a symbolic link (to '"
                                + outside.resolve("canary.raw")
                                + "') (vsm does not follow symbolic links inside a storage)",
                        "skipping '" + store.resolve("template/iso/linked.iso") + "': '"
                                + store.resolve("template/iso/linked.iso") + "' is a symbolic link (to '"
                                + outside.resolve("canary.iso")
                                + "') (vsm does not follow symbolic links inside a storage)");
    }

    @Test
    void aStoragePathThatIsALinkAndALinkThatStaysInsideWork() throws Exception {
        Path disk = Files.createDirectories(root.resolve("other-disk"));
        Path link = Files.createSymbolicLink(root.resolve("linked-store"), disk);
        Files.createDirectories(disk.resolve("template"));
        Files.createDirectories(disk.resolve("isos"));
        Files.createSymbolicLink(disk.resolve("template/iso"), Path.of("../isos"));
        Files.writeString(disk.resolve("isos/inside.iso"), "an iso");
        vsm.writeConfig("""
                storages:
                  st:
                    type: dir
                    path: %s
                    content: [images, iso]
                """.formatted(link));
        vsm.run("alloc", "st", "100", "vm-100-disk-0.raw", "1M").ok();
        assertThat(disk.resolve("images/100/vm-100-disk-0.raw")).isRegularFile();
        Vsm.Result r = vsm.run("list", "st").ok();
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).contains("st:100/vm-100-disk-0.raw").contains("st:iso/inside.iso");
        assertThat(vsm.run("path", "st:iso/inside.iso").ok().out().strip())
                .isEqualTo(link + "/template/iso/inside.iso");
        vsm.run("free", "st:100/vm-100-disk-0.raw").ok();
        vsm.run("free", "st:iso/inside.iso").ok();
        assertThat(disk.resolve("isos/inside.iso")).doesNotExist();
    }
}
