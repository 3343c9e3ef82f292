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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dir storage with {@code snapshot-as-volume-chain} (pve 9's external snapshots), through the
 * CLI against the real qemu-img: known data is written with {@code qemu-io} before and after every
 * snapshot, and after every rollback and delete (oldest, middle, newest) each remaining snapshot
 * and the volume read back byte for byte. Bad input changes nothing.
 */
class DirChainTest {
    private static final int SIZE = 1024 * 1024;
    private static final String VOLID = "chain:100/vm-100-disk-0.qcow2";
    private static final String VOLNAME = "100/vm-100-disk-0.qcow2";

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path images;
    /** What the guest sees in the volume now. */
    private byte[] current;
    /** What it saw when each snapshot was taken. */
    private final Map<String, byte[]> snapshots = new HashMap<>();

    @BeforeEach
    void setUp() {
        Path store = sandbox.resolve("store");
        // a pve 9 section: pve's boolean word, the comma-separated content list, pve's other keys
        vsm = new Vsm(sandbox)
                .writeConfig("storages:\n  chain:\n    type: dir\n    path: " + store
                        + "\n    content: images,iso,backup\n    snapshot-as-volume-chain: 1\n"
                        + "    prune-backups: keep-all=1\n    shared: 0\n");
        images = store.resolve("images/100");
        current = new byte[SIZE];
    }

    @Test
    void snapshotsRollbackAndDeletesKeepEveryLayersData() {
        vsm.run("alloc", "chain", "100", "", "1M", "--format", "qcow2").ok();
        write(0x11, 0, 256 * 1024);

        snapshot("s1");
        assertThat(Files.exists(images.resolve("snap-s1-vm-100-disk-0.qcow2"))).isTrue();
        JsonNode overlay = QemuImg.info(images.resolve("vm-100-disk-0.qcow2"));
        assertThat(overlay.get("backing-filename").asText())
                .as("relative backing name")
                .isEqualTo("snap-s1-vm-100-disk-0.qcow2");
        assertThat(overlay.get("cluster-size").asInt()).isEqualTo(128 * 1024);
        assertThat(overlay.at("/format-specific/data/extended-l2").asBoolean()).isTrue();
        write(0x22, 128 * 1024, 64 * 1024);
        write(0x23, 4096, 4096);

        snapshot("s2");
        write(0x33, 512 * 1024, 128 * 1024);
        snapshot("s3");
        write(0x44, 8192, 512);
        verify();
        assertThat(vsm.run("list", "chain").ok().lines())
                .as("snapshot files are not volumes")
                .hasSize(2)
                .last()
                .asString()
                .startsWith(VOLID + " ");
        assertThat(vsm.run("info", VOLID).ok().out()).contains("snapshots: s1,s2,s3\n");

        // rollback to the newest: the writes since it are gone, every snapshot stays
        assertThat(vsm.run("rollback", VOLID, "s3").ok().out())
                .isEqualTo("rolled back '" + VOLID + "' to snapshot 's3'\n");
        current = snapshots.get("s3").clone();
        verify();
        write(0x55, 0, 4096);

        // the middle one: s3 is rebased on s1
        assertThat(vsm.run("snapshot-delete", VOLID, "s2").ok().out())
                .startsWith(VOLNAME + ": deleting snapshot 's2' by rebasing 's3' on top of 's1'\n");
        snapshots.remove("s2");
        assertThat(images.resolve("snap-s2-vm-100-disk-0.qcow2")).doesNotExist();
        assertThat(QemuImg.info(images.resolve("snap-s3-vm-100-disk-0.qcow2"))
                        .get("backing-filename")
                        .asText())
                .isEqualTo("snap-s1-vm-100-disk-0.qcow2");
        verify();

        // the oldest: s3 is committed into s1, which takes s3's name
        assertThat(vsm.run("snapshot-delete", VOLID, "s1").ok().out())
                .startsWith(VOLNAME + ": deleting snapshot 's1' by commiting snapshot 's3'\n");
        snapshots.remove("s1");
        assertThat(images.resolve("snap-s1-vm-100-disk-0.qcow2")).doesNotExist();
        assertThat(QemuImg.info(images.resolve("snap-s3-vm-100-disk-0.qcow2")).has("backing-filename"))
                .isFalse();
        verify();

        // the newest: current is rebased on s3
        snapshot("s4");
        write(0x66, 1000 * 1024, 24 * 1024);
        assertThat(vsm.run("snapshot-delete", VOLID, "s4").ok().out())
                .startsWith(VOLNAME + ": deleting snapshot 's4' by rebasing 'current' on top of 's3'\n");
        snapshots.remove("s4");
        verify();
        assertThat(vsm.run("info", VOLID).ok().out()).contains("snapshots: s3\n");

        // the oldest when current is its child: current's data goes into it, and it becomes current
        assertThat(vsm.run("snapshot-delete", VOLID, "s3").ok().out())
                .startsWith(VOLNAME + ": deleting snapshot 's3' by commiting snapshot 'current'\n");
        snapshots.remove("s3");
        verify();
        assertThat(fileNames()).containsExactly("vm-100-disk-0.qcow2");
        assertThat(QemuImg.info(images.resolve("vm-100-disk-0.qcow2")).has("backing-filename"))
                .isFalse();
    }

    @Test
    void badInputIsRefusedWithPvesWordingAndChangesNothing() {
        vsm.run("alloc", "chain", "100", "", "1M", "--format", "qcow2").ok();
        vsm.run("alloc", "chain", "100", "", "1M", "--format", "raw").ok();
        write(0x11, 0, 64 * 1024);
        snapshot("s1");
        write(0x22, 0, 4096);
        snapshot("s2");
        write(0x33, 4096, 4096);

        Map<String, String> before = Tree.snapshot(sandbox.resolve("store"));
        refused("can't rollback, 's1' is not most recent snapshot on '" + VOLNAME + "'", "rollback", VOLID, "s1");
        refused("can't rollback, snapshot 'nope' does not exist on '" + VOLNAME + "'", "rollback", VOLID, "nope");
        refused("snapshot 'nope' does not exist on '" + VOLNAME + "'", "snapshot-delete", VOLID, "nope");
        refused("target snapshot 's1' already exists", "snapshot", VOLID, "s1");
        refused("snapshot feature is not available", "snapshot", "chain:100/vm-100-disk-1.raw", "s9");
        refused("can't rollback snapshot this image format", "rollback", "chain:100/vm-100-disk-1.raw", "s1");
        refused("can't delete snapshot for this image format", "snapshot-delete", "chain:100/vm-100-disk-1.raw", "s1");
        refused("invalid snapshot name '9lives'", "snapshot", VOLID, "9lives");
        refused("invalid snapshot name", "snapshot", VOLID, "a/../../b");
        refused("snapshot name 'current' is reserved", "snapshot", VOLID, "current");
        refused("we can't rename volume if a snapshot backed by a volume-chain exists", "rename", VOLID, "101");
        refused("no such volume '100/vm-100-disk-7.qcow2'", "snapshot", "chain:100/vm-100-disk-7.qcow2", "s3");
        refused(
                "'snap-s1-vm-100-disk-0.qcow2' is a snapshot filename, not a volume!",
                "free",
                "chain:100/snap-s1-vm-100-disk-0.qcow2");
        // pve's dir exports no chain with its snapshots (its layers are files of their own)
        String stream = sandbox.resolve("stream").toString();
        refused(
                "volume export format qcow2+size not available for '" + VOLID
                        + "' (storage type dir, which exports none)",
                "export",
                VOLID,
                "qcow2+size",
                stream,
                "--with-snapshots",
                "1");
        assertThat(Path.of(stream)).doesNotExist();

        // a dry run of every chain operation prints its steps and changes nothing
        assertThat(vsm.run("snapshot", VOLID, "s3", "--dry-run").ok().out())
                .contains("+ mv -n " + images.resolve("vm-100-disk-0.qcow2") + " "
                        + images.resolve("snap-s3-vm-100-disk-0.qcow2") + "\n")
                .contains("qemu-img create -F qcow2 -b snap-s3-vm-100-disk-0.qcow2 -f qcow2 "
                        + images.resolve("vm-100-disk-0.qcow2")
                        + " -o extended_l2=on,cluster_size=128k,preallocation=metadata\n");
        assertThat(vsm.run("rollback", VOLID, "s2", "--dry-run").ok().out())
                .contains("+ rm -f " + images.resolve("vm-100-disk-0.qcow2") + "\n")
                .contains("-b snap-s2-vm-100-disk-0.qcow2");
        assertThat(vsm.run("snapshot-delete", VOLID, "s1", "--dry-run").ok().out())
                .contains("qemu-img commit -f qcow2 " + images.resolve("snap-s2-vm-100-disk-0.qcow2") + "\n")
                .contains("+ mv -n " + images.resolve("snap-s1-vm-100-disk-0.qcow2") + " "
                        + images.resolve("snap-s2-vm-100-disk-0.qcow2") + "\n");
        assertThat(vsm.run("snapshot-delete", VOLID, "s2", "--dry-run").ok().out())
                .contains("qemu-img rebase -b snap-s1-vm-100-disk-0.qcow2 -F qcow2 -f qcow2 "
                        + images.resolve("vm-100-disk-0.qcow2") + "\n")
                .contains("+ rm -f " + images.resolve("snap-s2-vm-100-disk-0.qcow2") + "\n");
        assertThat(vsm.run("free", VOLID, "--dry-run").ok().out())
                .contains("+ rm -f " + images.resolve("snap-s1-vm-100-disk-0.qcow2") + "\n")
                .contains("+ rm -f " + images.resolve("snap-s2-vm-100-disk-0.qcow2") + "\n");
        assertThat(Tree.snapshot(sandbox.resolve("store"))).isEqualTo(before);
        verify();

        // free takes the snapshots with the volume
        vsm.run("free", VOLID).ok();
        assertThat(fileNames()).containsExactly("vm-100-disk-1.raw");
    }

    @Test
    void theOptionIsFixedWhenTheStorageIsAdded() {
        Path other = sandbox.resolve("other");
        vsm.run("add", "dir", "plain", "--path", other.toString(), "--content", "images")
                .ok();
        vsm.run("set", "plain", "--snapshot-as-volume-chain", "1").badInput("snapshot-as-volume-chain");
        vsm.run("set", "chain", "--delete", "snapshot-as-volume-chain").badInput("snapshot-as-volume-chain");
        vsm.run(
                        "add",
                        "dir",
                        "chained",
                        "--path",
                        sandbox.resolve("chained").toString(),
                        "--content",
                        "images",
                        "--snapshot-as-volume-chain",
                        "1",
                        "--preallocation",
                        "off")
                .ok();
        vsm.run("alloc", "chained", "100", "", "1M", "--format", "qcow2").ok();
        // pve: a chain overlay takes the storage's qcow2 preallocation, off as it is
        assertThat(vsm.run("snapshot", "chained:100/vm-100-disk-0.qcow2", "s1", "--dry-run")
                        .ok()
                        .out())
                .contains("-o extended_l2=on,cluster_size=128k,preallocation=off\n");
        // internal snapshots where the option is off
        vsm.run("alloc", "plain", "100", "", "1M", "--format", "qcow2").ok();
        vsm.run("snapshot", "plain:100/vm-100-disk-0.qcow2", "s1").ok();
        try (var files = Files.list(other.resolve("images/100"))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("vm-100-disk-0.qcow2");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        JsonNode status =
                vsm.run("status", "--format", "--output-format", "json").ok().json();
        assertThat(status.findValues("formats"))
                .allSatisfy(f ->
                        assertThat(f.get("supported").toString()).isEqualTo("[\"qcow2\",\"raw\",\"subvol\",\"vmdk\"]"));
    }

    private void refused(String message, String... args) {
        Map<String, String> before = Tree.snapshot(sandbox.resolve("store"));
        vsm.run(args).badInput(message);
        assertThat(Tree.snapshot(sandbox.resolve("store")))
                .as("vsm %s changed files", String.join(" ", args))
                .isEqualTo(before);
    }

    private void snapshot(String name) {
        assertThat(vsm.run("snapshot", VOLID, name).ok().out())
                .isEqualTo("successfully created snapshot '" + name + "' of '" + VOLID + "'\n");
        snapshots.put(name, current.clone());
        verify();
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
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
