package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The commands beyond the walk-through: path, volid, resize, preallocation, dry-run, config edits. */
class CommandsTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path store;

    @BeforeEach
    void setUp() {
        vsm = new Vsm(sandbox);
        store = sandbox.resolve("store");
        vsm.run("add", "dir", "st", "--path", store.toString(), "--content", "images,iso,backup")
                .ok();
    }

    @AfterEach
    void release() {
        vsm.releaseImmutable();
    }

    @Test
    void pathExplainsTheVolumeIdAndVolidMapsBack() throws Exception {
        JsonNode p = vsm.run("path", "st:100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2", "--output-format", "json")
                .ok()
                .json();
        assertThat(p.get("path").asText())
                .isEqualTo(store.resolve("images/101/vm-101-disk-0.qcow2").toString());
        assertThat(p.get("vtype").asText()).isEqualTo("images");
        assertThat(p.get("vmid").asInt()).isEqualTo(101);
        assertThat(p.get("basename").asText()).isEqualTo("base-100-disk-0.qcow2");
        assertThat(p.get("basevmid").asInt()).isEqualTo(100);
        assertThat(p.get("isBase").isBoolean()).isTrue();
        assertThat(p.get("format").asText()).isEqualTo("qcow2");
        assertThat(vsm.run("path", "st:iso/debian.iso").ok().out())
                .isEqualTo(store.resolve("template/iso/debian.iso") + "\n");

        vsm.run("alloc", "st", "100", "", "1M").ok();
        assertThat(vsm.run(
                                "volid",
                                store.resolve("images/100/vm-100-disk-0.raw").toString())
                        .ok()
                        .out())
                .isEqualTo("st:100/vm-100-disk-0.raw\n");
        Files.createDirectories(store.resolve("template/iso"));
        Files.writeString(store.resolve("template/iso/x.iso"), "iso");
        assertThat(vsm.run("volid", store.resolve("template/iso/x.iso").toString())
                        .ok()
                        .out())
                .isEqualTo("st:iso/x.iso\n");
        vsm.run("volid", "/etc/passwd").badInput("is not a volume of any storage");

        // a trailing slash: only a directory, so an image file is no volume, a subvol is
        vsm.run("volid", store.resolve("images/100/vm-100-disk-0.raw") + "/")
                .badInput("is not a volume of any storage");
        vsm.run("volid", store.resolve("images/100/vm-100-disk-5.raw") + "/")
                .badInput("is not a volume of any storage");
        vsm.run("set", "st", "--content", "backup,images,iso,rootdir").ok();
        vsm.run("alloc", "st", "101", "", "0", "--format", "subvol").ok();
        assertThat(vsm.run("volid", store.resolve("images/101/subvol-101-disk-0.subvol") + "/")
                        .ok()
                        .out())
                .isEqualTo("st:101/subvol-101-disk-0.subvol\n");
    }

    @Test
    void preallocationIsVisibleInTheAllocatedSize() {
        vsm.run("alloc", "st", "100", "", "64M", "--format", "raw").ok();
        vsm.run("alloc", "st", "100", "", "64M", "--format", "raw", "--preallocation", "full")
                .ok();
        vsm.run("alloc", "st", "100", "", "64M", "--format", "qcow2", "--preallocation", "falloc")
                .ok();
        vsm.run("alloc", "st", "100", "", "64M", "--format", "qcow2").ok();
        Path dir = store.resolve("images/100");
        assertThat(QemuImg.info(dir.resolve("vm-100-disk-0.raw"))
                        .get("actual-size")
                        .asLong())
                .isLessThan(1 << 20);
        assertThat(QemuImg.info(dir.resolve("vm-100-disk-1.raw"))
                        .get("actual-size")
                        .asLong())
                .isGreaterThanOrEqualTo(64L << 20);
        assertThat(QemuImg.info(dir.resolve("vm-100-disk-2.qcow2"))
                        .get("actual-size")
                        .asLong())
                .isGreaterThanOrEqualTo(64L << 20);
        long metadataOnly = QemuImg.info(dir.resolve("vm-100-disk-3.qcow2"))
                .get("actual-size")
                .asLong();
        assertThat(metadataOnly).isGreaterThan(64 * 1024).isLessThan(8L << 20);
    }

    @Test
    void storageWideSubclustersAndClusterSize() {
        vsm.run("set", "st", "--qcow2-subclusters", "on", "--qcow2-cluster-size", "256k")
                .ok();
        vsm.run("alloc", "st", "100", "", "16M", "--format", "qcow2").ok();
        JsonNode info = QemuImg.info(store.resolve("images/100/vm-100-disk-0.qcow2"));
        assertThat(info.get("cluster-size").asInt()).isEqualTo(256 * 1024);
        assertThat(info.path("format-specific").path("data").path("extended-l2").asBoolean())
                .isTrue();

        vsm.run("set", "st", "--qcow2-subclusters", "off", "--delete", "qcow2-cluster-size")
                .ok();
        vsm.run("create-base", "st:100/vm-100-disk-0.qcow2").ok();
        vsm.run("clone", "st:100/base-100-disk-0.qcow2", "101").ok();
        JsonNode clone = QemuImg.info(store.resolve("images/101/vm-101-disk-0.qcow2"));
        assertThat(clone.get("cluster-size").asInt()).isEqualTo(65536);
        assertThat(clone.path("format-specific")
                        .path("data")
                        .path("extended-l2")
                        .asBoolean())
                .isFalse();
    }

    @Test
    void resizeGrowsAndRefusesToShrink() {
        vsm.run("alloc", "st", "100", "", "1G", "--format", "qcow2").ok();
        vsm.run("resize", "st:100/vm-100-disk-0.qcow2", "+1G").ok();
        assertThat(QemuImg.info(store.resolve("images/100/vm-100-disk-0.qcow2"))
                        .get("virtual-size")
                        .asLong())
                .isEqualTo(2L << 30);
        vsm.run("resize", "st:100/vm-100-disk-0.qcow2", "3221225472B").ok();
        assertThat(QemuImg.info(store.resolve("images/100/vm-100-disk-0.qcow2"))
                        .get("virtual-size")
                        .asLong())
                .isEqualTo(3L << 30);
        vsm.run("resize", "st:100/vm-100-disk-0.qcow2", "1G").badInput("shrinking");
    }

    @Test
    void dryRunPrintsEveryChangeAndMakesNone() {
        vsm.run("alloc", "st", "100", "", "1M", "--format", "qcow2").ok();
        Map<String, String> before = Tree.snapshot(sandbox);

        Vsm.Result alloc = vsm.run("alloc", "st", "100", "", "1G", "--dry-run").ok();
        assertThat(alloc.lines())
                .anyMatch(l -> l.startsWith("+ qemu-img create -o preallocation=off -f raw "
                        + store.resolve("images/100/vm-100-disk-1.raw") + " 1048576K"));
        Vsm.Result base = vsm.run("create-base", "st:100/vm-100-disk-0.qcow2", "--dry-run")
                .ok();
        assertThat(base.lines()).anyMatch(l -> l.startsWith("+ mv -n ")).anyMatch(l -> l.startsWith("+ chmod 0440 "));
        Vsm.Result free =
                vsm.run("free", "st:100/vm-100-disk-0.qcow2", "--dry-run").ok();
        assertThat(free.lines()).anyMatch(l -> l.equals("+ rm -f " + store.resolve("images/100/vm-100-disk-0.qcow2")));
        Vsm.Result add = vsm.run(
                        "add",
                        "dir",
                        "other",
                        "--path",
                        sandbox.resolve("other").toString(),
                        "--dry-run")
                .ok();
        assertThat(add.lines()).anyMatch(l -> l.startsWith("+ write " + vsm.config()));
        vsm.run("set", "st", "--disable", "1", "--dry-run").ok();
        vsm.run("remove", "st", "--dry-run").ok();

        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
    }

    @Test
    void setDeleteAndRemoveEditTheConfigOnly() throws Exception {
        vsm.run("alloc", "st", "100", "", "1M").ok();
        vsm.run("set", "st", "--disable", "yes").ok();
        assertThat(vsm.run("status").ok().out()).containsPattern("st +dir +disabled .* N/A");
        vsm.run("list", "st").badInput("storage 'st' is disabled");
        vsm.run("set", "st", "--delete", "disable").ok();
        assertThat(Files.readString(vsm.config())).doesNotContain("disable");
        JsonNode status = vsm.run("status", "--storage", "st", "--output-format", "json")
                .ok()
                .json();
        assertThat(status.get(0).get("enabled").asInt()).isEqualTo(1);
        assertThat(status.get(0).get("active").asInt()).isEqualTo(1);
        assertThat(status.get(0).get("content").asText()).isEqualTo("backup,images,iso");
        assertThat(status.get(0).get("total").asLong()).isPositive();
        assertThat(status.get(0).get("used_fraction").asDouble()).isBetween(0.0, 1.0);

        vsm.run("remove", "st").ok();
        assertThat(Files.readString(vsm.config())).doesNotContain("st:");
        assertThat(Files.exists(store.resolve("images/100/vm-100-disk-0.raw")))
                .as("data stays")
                .isTrue();
        vsm.run("list", "st").badInput("storage 'st' does not exist");
    }

    @Test
    void listFiltersAndFormats() throws Exception {
        vsm.run("alloc", "st", "100", "", "1M").ok();
        vsm.run("alloc", "st", "200", "", "2M", "--format", "qcow2").ok();
        Files.createDirectories(store.resolve("template/iso"));
        Files.writeString(store.resolve("template/iso/debian.iso"), "x".repeat(1000));
        Vsm.Result all = vsm.run("list", "st").ok();
        assertThat(all.lines()).hasSize(4);
        assertThat(all.lines().get(3)).matches("st:iso/debian\\.iso +iso +iso +1000");
        assertThat(vsm.run("list", "st", "--vmid", "200").ok().lines()).hasSize(2);
        assertThat(vsm.run("list", "st", "--content", "iso").ok().lines()).hasSize(2);
        JsonNode json = vsm.run("list", "st", "--vmid", "100", "--output-format", "json")
                .ok()
                .json();
        assertThat(json.get(0).get("volid").asText()).isEqualTo("st:100/vm-100-disk-0.raw");
        assertThat(json.get(0).get("size").asLong()).isEqualTo(1 << 20);
        assertThat(json.get(0).get("content").asText()).isEqualTo("images");
        assertThat(json.get(0).has("ctime")).isTrue();
        assertThat(vsm.run("list", "st", "--output-format", "yaml").ok().out())
                .contains("volid: st:100/vm-100-disk-0.raw");
        assertThat(vsm.run("apiinfo").ok().lines()).containsExactly("APIVER 1", "APIAGE 0");
    }
}
