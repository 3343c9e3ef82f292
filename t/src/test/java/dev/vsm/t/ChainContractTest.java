package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.QemuIo;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a VM manager takes from pve's plugin API 15, on a dir storage through the CLI against the
 * real qemu-img: every layer of a chain in {@code vsm info}, the resize of a snapshot's layer
 * before a commit into it, the rename of a snapshot, whether a rollback is possible and what
 * blocks it, and activation. Data is written with {@code qemu-io} and read back byte for byte
 * wherever a step moves it; bad input and dry runs change nothing.
 */
class ChainContractTest {
    private static final int SIZE = 1024 * 1024;
    private static final String VOLID = "chain:100/vm-100-disk-0.qcow2";
    private static final String VOLNAME = "100/vm-100-disk-0.qcow2";
    private static final String PLAIN = "plain:100/vm-100-disk-0.qcow2";

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path images;
    /** What the guest sees in the volume now. */
    private byte[] current;
    /** What it saw when each snapshot was taken, by the snapshot's name. */
    private final Map<String, byte[]> snapshots = new HashMap<>();

    @BeforeEach
    void setUp() {
        vsm = new Vsm(sandbox)
                .writeConfig("storages:\n  chain:\n    type: dir\n    path: " + sandbox.resolve("store")
                        + "\n    content: images\n    snapshot-as-volume-chain: 1\n"
                        + "  plain:\n    type: dir\n    path: " + sandbox.resolve("plain")
                        + "\n    content: images\n");
        images = sandbox.resolve("store/images/100");
        current = new byte[SIZE];
        vsm.run("alloc", "chain", "100", "", "1M", "--format", "qcow2").ok();
    }

    @Test
    void infoShowsEveryLayerAsPvesSnapshotInfo() {
        long before = System.currentTimeMillis() / 1000 - 2;
        write(0x11, 0, 4096);
        snapshot("s1");
        write(0x22, 4096, 4096);
        snapshot("s2");
        long after = System.currentTimeMillis() / 1000 + 2;

        JsonNode layers =
                vsm.run("info", VOLID, "--output-format", "json").ok().json().get("layers");
        assertThat(layers).hasSize(3);
        assertLayer(layers.get(0), "current", 0, "s2", null, "vm-100-disk-0.qcow2");
        assertLayer(layers.get(1), "s2", 1, "s1", "current", "snap-s2-vm-100-disk-0.qcow2");
        assertLayer(layers.get(2), "s1", 2, null, "s2", "snap-s1-vm-100-disk-0.qcow2");
        for (JsonNode layer : layers) {
            assertThat(layer.get("virtual-size").asLong()).isEqualTo(SIZE);
            assertThat(layer.get("timestamp").asLong()).isBetween(before, after);
        }

        String text = vsm.run("info", VOLID).ok().out();
        assertThat(text)
                .contains("snapshots: s1,s2\n")
                .contains("layer: 0 current parent=s2 file=" + images.resolve("vm-100-disk-0.qcow2") + " volid=" + VOLID
                        + " virtual-size=" + SIZE + " timestamp=")
                .contains("layer: 2 s1 child=s2 file=" + images.resolve("snap-s1-vm-100-disk-0.qcow2")
                        + " volid=chain:100/snap-s1-vm-100-disk-0.qcow2 virtual-size=" + SIZE + " timestamp=");

        // a volume without snapshots is one layer, current
        vsm.run("alloc", "chain", "100", "vm-100-disk-1.qcow2", "1M").ok();
        JsonNode single = vsm.run("info", "chain:100/vm-100-disk-1.qcow2", "--output-format", "json")
                .ok()
                .json()
                .get("layers");
        assertThat(single).hasSize(1);
        assertThat(single.get(0).get("name").asText()).isEqualTo("current");
        assertThat(single.get(0).has("parent")).isFalse();
    }

    @Test
    void internalSnapshotsAreLayersWithTheirCreationTime() {
        vsm.run("alloc", "plain", "100", "", "1M", "--format", "qcow2").ok();
        long before = System.currentTimeMillis() / 1000 - 2;
        vsm.run("snapshot", PLAIN, "a1").ok();
        vsm.run("snapshot", PLAIN, "a2").ok();
        long after = System.currentTimeMillis() / 1000 + 2;
        JsonNode layers =
                vsm.run("info", PLAIN, "--output-format", "json").ok().json().get("layers");
        assertThat(layers).hasSize(2);
        assertThat(layers.get(0).get("name").asText()).isEqualTo("a2");
        assertThat(layers.get(0).get("order").asInt()).isEqualTo(1);
        assertThat(layers.get(1).get("name").asText()).isEqualTo("a1");
        assertThat(layers.get(1).get("order").asInt()).isEqualTo(2);
        for (JsonNode layer : layers) {
            assertThat(layer.get("timestamp").asLong()).isBetween(before, after);
            assertThat(layer.has("file"))
                    .as("an internal snapshot has no file of its own")
                    .isFalse();
        }
        // any internal snapshot can be rolled back to (pve)
        assertThat(vsm.run("rollback-check", PLAIN, "a1").ok().out())
                .isEqualTo("rollback of '" + PLAIN + "' to snapshot 'a1' is possible\n");
        Map<String, String> tree = Tree.snapshot(sandbox.resolve("plain"));
        vsm.run("resize", PLAIN, "2M", "--snapshot", "a1")
                .badInput("resizing a snapshot is not supported for storage 'plain' (type dir) without"
                        + " 'snapshot-as-volume-chain'");
        vsm.run("rename-snapshot", PLAIN, "a1", "b1")
                .badInput("renaming a snapshot is not supported for storage 'plain' (type dir) without"
                        + " 'snapshot-as-volume-chain'");
        assertThat(Tree.snapshot(sandbox.resolve("plain"))).isEqualTo(tree);
    }

    /**
     * pve #7094: the disk grew after a snapshot; before the manager commits current into the
     * oldest snapshot it grows that snapshot's layer, and the commit keeps every byte, including
     * those beyond the layer's old end.
     */
    @Test
    void aSnapshotsLayerGrownBeforeACommitIntoItKeepsTheData() {
        write(0x11, 0, 64 * 1024);
        snapshot("s1");
        assertThat(vsm.run("resize", VOLID, "2M").ok().out())
                .isEqualTo("resized '" + VOLID + "' to " + 2 * SIZE + " bytes\n");
        current = Arrays.copyOf(current, 2 * SIZE);
        write(0x22, SIZE + 4096, 64 * 1024); // beyond s1's end
        write(0x23, 8192, 4096);

        // a dry run prints the command and changes nothing
        Map<String, String> tree = Tree.snapshot(sandbox.resolve("store"));
        assertThat(vsm.run("resize", VOLID, "2M", "--snapshot", "s1", "--dry-run")
                        .ok()
                        .out())
                .contains("qemu-img resize")
                .contains(images.resolve("snap-s1-vm-100-disk-0.qcow2") + " " + 2 * SIZE + "\n")
                .endsWith("would resize '" + VOLID + "' snapshot 's1' to " + 2 * SIZE + " bytes\n");
        assertThat(Tree.snapshot(sandbox.resolve("store"))).isEqualTo(tree);

        JsonNode resized = vsm.run("resize", VOLID, "2M", "--snapshot", "s1", "--output-format", "json")
                .ok()
                .json();
        assertThat(resized.get("snapshot").asText()).isEqualTo("s1");
        assertThat(resized.get("size").asLong()).isEqualTo(2L * SIZE);
        assertThat(QemuImg.info(images.resolve("snap-s1-vm-100-disk-0.qcow2"))
                        .get("virtual-size")
                        .asLong())
                .isEqualTo(2L * SIZE);
        // the layer grew with zeros: s1 reads as before, then zeros
        snapshots.put("s1", Arrays.copyOf(snapshots.get("s1"), 2 * SIZE));
        verify();

        // the manager's commit of current into s1 (offline: qemu-img's, as a block-commit would)
        QemuIo.run(
                "qemu-img",
                "commit",
                "-f",
                "qcow2",
                images.resolve("vm-100-disk-0.qcow2").toString());
        assertSameData("s1 after the commit", images.resolve("snap-s1-vm-100-disk-0.qcow2"), current);
        assertSameData("current after the commit", images.resolve("vm-100-disk-0.qcow2"), current);

        // growing by a size, and the refusals
        assertThat(vsm.run("resize", VOLID, "+1M", "--snapshot", "s1").ok().out())
                .isEqualTo("resized '" + VOLID + "' snapshot 's1' to " + 3 * SIZE + " bytes\n");
        tree = Tree.snapshot(sandbox.resolve("store"));
        vsm.run("resize", VOLID, "1M", "--snapshot", "s1")
                .badInput("shrinking snapshot 's1' of '" + VOLID + "' from " + 3 * SIZE + " to " + SIZE
                        + " bytes is not supported");
        vsm.run("resize", VOLID, "4M", "--snapshot", "nope")
                .badInput("snapshot 'nope' does not exist on '" + VOLNAME + "'");
        vsm.run("resize", VOLID, "4M", "--snapshot", "current").badInput("snapshot name 'current' is reserved");
        vsm.run("resize", VOLID, "4M", "--snapshot", "../x").badInput("invalid snapshot name");
        assertThat(Tree.snapshot(sandbox.resolve("store"))).isEqualTo(tree);
    }

    @Test
    void aRenamedSnapshotKeepsTheChainAndEveryLayersData() {
        write(0x11, 0, 64 * 1024);
        snapshot("s1");
        write(0x22, 4096, 4096);
        snapshot("s2");
        write(0x33, 65536, 4096);
        snapshot("s3");
        write(0x44, 0, 512);

        Map<String, String> tree = Tree.snapshot(sandbox.resolve("store"));
        assertThat(vsm.run("rename-snapshot", VOLID, "s2", "mid", "--dry-run")
                        .ok()
                        .out())
                .contains("+ mv -n " + images.resolve("snap-s2-vm-100-disk-0.qcow2") + " "
                        + images.resolve("snap-mid-vm-100-disk-0.qcow2") + "\n")
                .contains("qemu-img rebase -u -b snap-mid-vm-100-disk-0.qcow2 -F qcow2 -f qcow2 "
                        + images.resolve("snap-s3-vm-100-disk-0.qcow2") + "\n");
        assertThat(Tree.snapshot(sandbox.resolve("store"))).isEqualTo(tree);

        // a middle one, the newest (current above it) and the oldest
        rename("s2", "mid");
        assertThat(QemuImg.info(images.resolve("snap-s3-vm-100-disk-0.qcow2"))
                        .get("backing-filename")
                        .asText())
                .isEqualTo("snap-mid-vm-100-disk-0.qcow2");
        rename("s3", "top");
        assertThat(QemuImg.info(images.resolve("vm-100-disk-0.qcow2"))
                        .get("backing-filename")
                        .asText())
                .isEqualTo("snap-top-vm-100-disk-0.qcow2");
        rename("s1", "first");
        assertThat(vsm.run("info", VOLID).ok().out()).contains("snapshots: first,mid,top\n");

        refused("target snapshot 'mid' already exists", "rename-snapshot", VOLID, "first", "mid");
        refused("snapshot 'nope' does not exist on '" + VOLNAME + "'", "rename-snapshot", VOLID, "nope", "x1");
        refused("snapshot name 'current' is reserved", "rename-snapshot", VOLID, "current", "x1");
        refused("snapshot name 'current' is reserved", "rename-snapshot", VOLID, "top", "current");
        refused("invalid snapshot name", "rename-snapshot", VOLID, "top", "a/b");
        refused("snapshot 'top' would be renamed to itself", "rename-snapshot", VOLID, "top", "top");

        // the renamed chain works on: rollback to the newest, delete of the middle and the oldest
        vsm.run("rollback", VOLID, "top").ok();
        current = snapshots.get("top").clone();
        verify();
        vsm.run("snapshot-delete", VOLID, "mid").ok();
        snapshots.remove("mid");
        verify();
        vsm.run("snapshot-delete", VOLID, "first").ok();
        snapshots.remove("first");
        verify();
        assertThat(fileNames()).containsExactly("snap-top-vm-100-disk-0.qcow2", "vm-100-disk-0.qcow2");
    }

    @Test
    void rollbackCheckNamesTheSnapshotsThatBlockIt() {
        snapshot("s1");
        snapshot("s2");
        snapshot("s3");
        assertThat(vsm.run("rollback-check", VOLID, "s3").ok().out())
                .isEqualTo("rollback of '" + VOLID + "' to snapshot 's3' is possible\n");
        Vsm.Result blocked = vsm.run("rollback-check", VOLID, "s1");
        assertThat(blocked.exit()).isEqualTo(1);
        assertThat(blocked.out()).isEqualTo("blocked by: s3 s2\n");
        assertThat(blocked.err().strip())
                .isEqualTo("can't rollback, 's1' is not most recent snapshot on '" + VOLNAME + "'");
        JsonNode json = vsm.run("rollback-check", VOLID, "s2", "--output-format", "json")
                .json();
        assertThat(json.get("possible").asBoolean()).isFalse();
        assertThat(json.get("blockers").toString()).isEqualTo("[\"s3\"]");
        assertThat(vsm.run("rollback-check", VOLID, "s3", "--output-format", "json")
                        .ok()
                        .json()
                        .get("blockers")
                        .size())
                .isZero();
        vsm.run("rollback-check", VOLID, "nope")
                .badInput("can't rollback, snapshot 'nope' does not exist on '" + VOLNAME + "'");
        vsm.run("rollback-check", VOLID, "9x").badInput("invalid snapshot name");
        vsm.run("rollback-check", "chain:100/vm-100-disk-7.qcow2", "s1")
                .badInput("no such volume '100/vm-100-disk-7.qcow2'");
    }

    @Test
    void activationChecksTheVolumeAndItsSnapshot() {
        snapshot("s1");
        assertThat(vsm.run("activate", VOLID).ok().out()).isEqualTo("activated '" + VOLID + "'\n");
        JsonNode json = vsm.run("activate", VOLID, "--snapshot", "s1", "--output-format", "json")
                .ok()
                .json();
        assertThat(json.get("path").asText())
                .isEqualTo(images.resolve("snap-s1-vm-100-disk-0.qcow2").toString());
        assertThat(vsm.run("deactivate", VOLID, "--snapshot", "s1").ok().out())
                .isEqualTo("deactivated '" + VOLID + "' snapshot 's1'\n");
        assertThat(vsm.run("deactivate", VOLID, "--dry-run").ok().out())
                .isEqualTo("would deactivate '" + VOLID + "'\n");
        refused("snapshot 'nope' does not exist on '" + VOLNAME + "'", "activate", VOLID, "--snapshot", "nope");
        refused("volume 'chain:100/vm-100-disk-7.qcow2' does not exist", "activate", "chain:100/vm-100-disk-7.qcow2");
        refused("invalid snapshot name", "activate", VOLID, "--snapshot", "-x");
        refused("unable to parse", "activate", "chain:../x");
    }

    private void assertLayer(JsonNode layer, String name, int order, String parent, String child, String file) {
        assertThat(layer.get("name").asText()).isEqualTo(name);
        assertThat(layer.get("order").asInt()).isEqualTo(order);
        assertThat(layer.has("parent") ? layer.get("parent").asText() : null).isEqualTo(parent);
        assertThat(layer.has("child") ? layer.get("child").asText() : null).isEqualTo(child);
        assertThat(layer.get("file").asText()).isEqualTo(images.resolve(file).toString());
        assertThat(layer.get("volid").asText()).isEqualTo("chain:100/" + file);
    }

    private void rename(String from, String to) {
        assertThat(vsm.run("rename-snapshot", VOLID, from, to).ok().out())
                .isEqualTo("renamed snapshot '" + from + "' of '" + VOLID + "' to '" + to + "'\n");
        snapshots.put(to, snapshots.remove(from));
        assertThat(images.resolve("snap-" + from + "-vm-100-disk-0.qcow2")).doesNotExist();
        verify();
    }

    private void refused(String message, String... args) {
        Map<String, String> before = Tree.snapshot(sandbox.resolve("store"));
        vsm.run(args).badInput(message);
        assertThat(Tree.snapshot(sandbox.resolve("store")))
                .as("vsm %s changed files", String.join(" ", args))
                .isEqualTo(before);
    }

    private void snapshot(String name) {
        vsm.run("snapshot", VOLID, name).ok();
        snapshots.put(name, current.clone());
    }

    /** Writes {@code length} bytes of {@code pattern} at {@code offset} into the volume, as a guest would. */
    private void write(int pattern, int offset, int length) {
        QemuIo.write(images.resolve("vm-100-disk-0.qcow2"), current, pattern, offset, length);
    }

    /** The volume and every snapshot read back byte for byte, and each layer consistent. */
    private void verify() {
        assertSameData("current", images.resolve("vm-100-disk-0.qcow2"), current);
        for (Map.Entry<String, byte[]> s : snapshots.entrySet()) {
            assertSameData(
                    "snapshot " + s.getKey(),
                    images.resolve("snap-" + s.getKey() + "-vm-100-disk-0.qcow2"),
                    s.getValue());
        }
        for (String name : fileNames()) {
            QemuImg.check(images.resolve(name));
        }
    }

    private void assertSameData(String what, Path image, byte[] expected) {
        QemuIo.assertReadsAs(what, image, expected, sandbox);
    }

    private List<String> fileNames() {
        try (var files = Files.list(images)) {
            return new ArrayList<>(
                    files.map(p -> p.getFileName().toString()).sorted().toList());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
