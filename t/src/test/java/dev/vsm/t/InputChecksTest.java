package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.ScratchDisk;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.RootTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inputs vsm used to accept and fail on later (or never): each is now bad input — exit 2, one
 * line, nothing changed — when it is given or when the configuration file is read.
 */
class InputChecksTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path store;

    @BeforeEach
    void setUp() {
        store = sandbox.resolve("store");
        vsm = new Vsm(sandbox).writeConfig("""
                storages:
                  st:
                    type: dir
                    path: %s
                """.formatted(store));
    }

    private String config(String section) {
        return "storages:\n  st:\n" + section.indent(4);
    }

    @Test
    void freeOfAVolumeThatIsAlreadyGoneWarnsAndSucceedsAsPvesmAndClaimsNothing() {
        // qemu-server's migration cleanup runs 'pvesm free' on volumes that may be gone and counts
        // a non-zero exit as a failed cleanup
        vsm.run("alloc", "st", "100", "vm-100-disk-0.raw", "1M").ok();
        Map<String, String> before = Tree.snapshot(store);
        Vsm.Result r = vsm.run("free", "st:100/vm-100-disk-9.raw").ok();
        assertThat(r.err())
                .isEqualTo("warning: volume 'st:100/vm-100-disk-9.raw' does not exist (no file '"
                        + store.resolve("images/100/vm-100-disk-9.raw") + "') - nothing to remove\n");
        assertThat(r.out()).as("nothing claimed").isEmpty();
        assertThat(vsm.run("free", "st:iso/missing.iso", "--output-format", "json")
                        .ok()
                        .json()
                        .path("removed")
                        .asBoolean(true))
                .isFalse();
        assertThat(Tree.snapshot(store)).isEqualTo(before);
        assertThat(vsm.run("free", "st:100/vm-100-disk-0.raw", "--output-format", "json")
                        .ok()
                        .json()
                        .path("removed")
                        .asBoolean(false))
                .isTrue();
    }

    @Test
    void aDirPathInASystemDirectoryIsRefusedWhenTheFileIsRead() {
        for (String path :
                new String[] {"/dev", "/dev/shm/vsm", "/sys/kernel", "/run/vsm", "/proc/self/cwd", "//./dev/x", "/./run"
                }) {
            vsm.writeConfig(config("type: dir\npath: " + path));
            vsm.run("status").badInput(vsm.config() + ":4: storage 'st': path: value '" + path + "' does not match");
            vsm.run("alloc", "st", "100", "", "1M").badInput(vsm.config() + ":4:");
        }
        assertThat(Path.of("/dev/images")).doesNotExist();
        assertThat(Path.of("/run/vsm")).doesNotExist();
        // names that only begin like one are ordinary directories
        Path devices = sandbox.resolve("devices");
        vsm.writeConfig(config("type: dir\npath: " + sandbox + "/./devices"));
        vsm.run("alloc", "st", "100", "", "1M").ok();
        assertThat(devices.resolve("images/100/vm-100-disk-0.raw")).isRegularFile();
    }

    @Test
    void aDirPathThatIsALinkIntoASystemDirectoryIsRefusedBeforeAnythingIsMade() throws Exception {
        Path link = Files.createSymbolicLink(sandbox.resolve("shm"), Path.of("/dev/shm"));
        vsm.writeConfig(config("type: dir\npath: " + link));
        vsm.run("alloc", "st", "100", "", "1M")
                .badInput("storage 'st': path '" + link + "' resolves to '/dev/shm', in /dev - refusing");
        assertThat(Path.of("/dev/shm/images")).doesNotExist();
    }

    @Test
    void everyPropertyValueIsCheckedWhenTheFileIsRead() {
        String[][] bad = {
            {"qcow2-cluster-size: 99999999999", "qcow2-cluster-size: value '99999999999' does not match"},
            {"qcow2-cluster-size: 3k", "qcow2-cluster-size: value '3k' does not match"},
            {"qcow2-cluster-size: 4M", "qcow2-cluster-size: value '4M' does not match"},
            {"content-dirs: [film=iso]", "content-dirs: value 'film=iso' does not match"},
            {"content-dirs: [\"iso=" + "x".repeat(255) + "\"]", "content-dirs: value 'iso=xxx"},
        };
        for (String[] c : bad) {
            vsm.writeConfig(config("type: dir\npath: " + store + "\n" + c[0]));
            vsm.run("status").badInput(vsm.config() + ":5: storage 'st': " + c[1]);
        }
        for (String ratio : new String[] {"0", "-1", "0.0"}) {
            vsm.writeConfig(config("type: lvmthin\nvgname: vg\nthinpool: pool\nmax-overprovision: " + ratio));
            vsm.run("status")
                    .badInput(
                            vsm.config() + ":6: storage 'st': max-overprovision: value '" + ratio + "' does not match");
        }
        vsm.writeConfig(config("type: dir\npath: " + store + "\nqcow2-cluster-size: 2M"));
        vsm.run("status").ok();
    }

    @Test
    void aStorageIdVsmCannotUseIsRefused() throws Exception {
        String before = Files.readString(vsm.config());
        vsm.run(
                        "add",
                        "dir",
                        "a".repeat(131_000),
                        "--path",
                        sandbox.resolve("long").toString())
                .badInput("is 131000 characters long: at most 192");
        vsm.run("add", "dir", "a".repeat(193), "--path", sandbox.resolve("long").toString())
                .badInput("at most 192");
        assertThat(Files.readString(vsm.config())).isEqualTo(before);
        assertThat(sandbox.resolve("long")).doesNotExist();
        // the longest one works, lock file and all
        String longest = "b".repeat(192);
        vsm.run("add", "dir", longest, "--path", sandbox.resolve("long").toString())
                .ok();
        vsm.run("alloc", longest, "100", "", "1M").ok();
        vsm.run("remove", longest).ok();
    }

    @Test
    void aSizeNoImageCanHoldIsBadInput() {
        vsm.run("alloc", "st", "100", "vm-100-disk-0.qcow2", "1M").ok();
        Map<String, String> before = Tree.snapshot(store);
        vsm.run("alloc", "st", "100", "", "8589934591G", "--format", "qcow2")
                .badInput(
                        "size: 9223372035781033984 bytes is more than a qcow2 image can hold here: at most 2251799813685248 bytes");
        vsm.run("alloc", "st", "100", "", "2049T", "--format", "qcow2").badInput("at most 2251799813685248 bytes");
        vsm.run("resize", "st:100/vm-100-disk-0.qcow2", "8589934591G").badInput("at most 2251799813685248 bytes");
        vsm.run("resize", "st:100/vm-100-disk-0.qcow2", "+8589934591G").badInput("at most 2251799813685248 bytes");
        assertThat(Tree.snapshot(store)).isEqualTo(before);
        // larger clusters map more
        vsm.writeConfig(config("type: dir\npath: " + store + "\nqcow2-cluster-size: 2M\nqcow2-subclusters: off"));
        vsm.run("alloc", "st", "100", "", "2049T", "--format", "qcow2", "--dry-run")
                .ok();
    }

    /** A raw file on ext4 is at most 2^32 - 1 blocks: a 16 TiB image is refused there before qemu-img runs. */
    @RootTest
    @Test
    void aRawImageLargerThanExt4CanHoldIsBadInput() throws Exception {
        ScratchDisk.requireRootLoopAndTools("losetup", "mkfs.ext4", "mount", "umount");
        try (ScratchDisk disk = ScratchDisk.create(sandbox, 64L << 20)) {
            ScratchDisk.run("mkfs.ext4", "-q", "-F", "-b", "4096", disk.device().toString());
            Path mnt = Files.createDirectories(sandbox.resolve("mnt"));
            ScratchDisk.run("mount", disk.device().toString(), mnt.toString());
            try {
                vsm.writeConfig(config("type: dir\npath: " + mnt.resolve("st")));
                vsm.run("alloc", "st", "100", "vm-100-disk-0.raw", "1M").ok();
                Map<String, String> before = Tree.snapshot(mnt.resolve("st"));
                vsm.run("alloc", "st", "100", "", "8589934591G")
                        .badInput(
                                "size: 9223372035781033984 bytes is more than a raw image can hold here: at most 17592186040320 bytes");
                vsm.run("alloc", "st", "100", "", "16T").badInput("at most 17592186040320 bytes");
                vsm.run("resize", "st:100/vm-100-disk-0.raw", "16T").badInput("at most 17592186040320 bytes");
                assertThat(Tree.snapshot(mnt.resolve("st"))).isEqualTo(before);
                assertThat(Files.size(mnt.resolve("st/images/100/vm-100-disk-0.raw")))
                        .isEqualTo(1L << 20);
            } finally {
                ScratchDisk.run("umount", mnt.toString());
            }
        }
    }
}
