package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.LvmSandbox;
import dev.vsm.t.support.ScratchDisk;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * External tools failing and full disks: qemu-img missing, hanging
 * (the watchdog of {@code VSM_QEMU_IMG_TIMEOUT}), lvm2 printing warnings, a file system that
 * fills up during alloc, preallocated images larger than the free space. Each leaves nothing
 * behind and says in one line what failed. (qemu-img returning an error is
 * {@code BadInputTest#aFailingQemuImgLeavesNothingBehind}; an LVM alloc beyond the VG's free
 * space is {@code LvmWalkThroughTest#notEnoughSpaceIsRefusedBeforeAnythingIsCreatedWithTheSizes}.)
 */
class ExternalToolsTest {
    @TempDir
    Path sandbox;

    private Vsm dirStorage(Path store) {
        return new Vsm(sandbox)
                .writeConfig("storages:\n  local:\n    type: dir\n    path: " + store + "\n    content: [images]\n");
    }

    private Path script(String name, String body) throws IOException {
        Path file = Files.createDirectories(sandbox.resolve("bin")).resolve(name);
        Files.writeString(file, "#!/bin/bash\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    @Test
    void aMissingQemuImgIsNamedAndNothingIsLeft() {
        Path store = sandbox.resolve("store");
        Vsm vsm = dirStorage(store)
                .env("VSM_QEMU_IMG", sandbox.resolve("no/such/qemu-img").toString());
        vsm.run("status").ok();
        Map<String, String> before = Tree.snapshot(store);
        Vsm.Result r = vsm.run("alloc", "local", "100", "", "1M", "--format", "raw");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err().strip())
                .contains(sandbox.resolve("no/such/qemu-img").toString())
                .doesNotContain("\n");
        assertThat(Tree.snapshot(store)).isEqualTo(before);
    }

    @Test
    void aHangingQemuImgIsStoppedByTheWatchdogAndItsFileRemoved() throws Exception {
        Path store = sandbox.resolve("store");
        String nonce = "vsm-hang-" + System.nanoTime();
        // makes the image for real, then hangs as on a dead NFS server
        Path hang = script("qemu-img", "qemu-img \"$@\" >/dev/null\nexec -a " + nonce + " sleep 600");
        Vsm vsm = dirStorage(store).env("VSM_QEMU_IMG", hang.toString()).env("VSM_QEMU_IMG_TIMEOUT", "2");
        vsm.run("status").ok();
        Map<String, String> before = Tree.snapshot(store);
        Vsm.Result r = vsm.run("alloc", "local", "100", "", "1M", "--format", "raw");
        List<ProcessHandle> left = ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().orElse("").contains(nonce))
                .toList();
        left.forEach(ProcessHandle::destroyForcibly); // ours: the script this test wrote
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err().strip()).contains("qemu-img").contains("got timeout").doesNotContain("\n");
        assertThat(left).as("the hung qemu-img is stopped").isEmpty();
        assertThat(Tree.snapshot(store)).as("the half-made image is removed").isEqualTo(before);
    }

    @RootTest
    @Test
    void aFileSystemThatFillsUpDuringAllocLeavesNothingAndPreallocationIsCheckedFirst() throws Exception {
        ScratchDisk.requireRootLoopAndTools("losetup", "mkfs.ext4", "mount", "umount");
        Path mnt = Files.createDirectories(sandbox.resolve("mnt"));
        try (ScratchDisk disk = ScratchDisk.create(sandbox, 16L << 20)) {
            mustRun("mkfs.ext4", "-q", "-F", "-m", "0", disk.device().toString());
            mustRun("mount", disk.device().toString(), mnt.toString());
            try {
                Path store = mnt.resolve("store");
                Vsm vsm = dirStorage(store);
                vsm.run("status").ok();

                // item 7: a preallocated image beyond the free space is refused before anything is made, with both
                // sizes
                Map<String, String> before = Tree.snapshot(store);
                for (String[] fp :
                        new String[][] {{"raw", "full"}, {"raw", "falloc"}, {"qcow2", "falloc"}, {"qcow2", "full"}}) {
                    Vsm.Result r =
                            vsm.run("alloc", "local", "100", "", "64M", "--format", fp[0], "--preallocation", fp[1]);
                    assertThat(r.exit()).as("%s %s: %s", fp[0], fp[1], r.err()).isEqualTo(1);
                    assertThat(r.err().strip())
                            .matches("storage 'local': not enough free space for a preallocated image "
                                    + "\\(67108864 bytes requested with preallocation=" + fp[1]
                                    + ", \\d+ bytes free in '" + store + "'\\)");
                    assertThat(Tree.snapshot(store)).isEqualTo(before);
                }
                // sparse images may overcommit, as a thin pool does
                vsm.run("alloc", "local", "100", "", "64M", "--format", "raw").ok();

                // item 6: the disk fills up while qemu-img writes: fill the rest, then a 16G qcow2 needs 2 MiB of L2
                // tables
                Path filler = mnt.resolve("filler");
                run("dd", "if=/dev/zero", "of=" + filler, "bs=1M", "count=64", "status=none");
                before = Tree.snapshot(store);
                Vsm.Result full =
                        vsm.run("alloc", "local", "100", "", "16G", "--format", "qcow2", "--preallocation", "metadata");
                assertThat(full.exit()).as(full.err()).isEqualTo(1);
                assertThat(full.err().strip())
                        .startsWith("unable to create image: ")
                        .contains("No space left on device")
                        .doesNotContain("\n");
                assertThat(Tree.snapshot(store))
                        .as("nothing left behind on a full disk")
                        .isEqualTo(before);
                Files.delete(filler);
            } finally {
                run("umount", mnt.toString());
            }
        }
    }

    /**
     * A linked clone gets its base's size preallocated when the storage asks for {@code falloc}
     * or {@code full} and the clone has subclusters (qemu allows preallocation on a backed qcow2
     * only with extended L2): refused like an alloc when it would not fit.
     */
    @RootTest
    @Test
    void aPreallocatedLinkedCloneBeyondTheFreeSpaceIsRefusedBeforeAnythingIsMade() throws Exception {
        ScratchDisk.requireRootLoopAndTools("losetup", "mkfs.ext4", "mount", "umount", "chattr");
        Path mnt = Files.createDirectories(sandbox.resolve("mnt"));
        try (ScratchDisk disk = ScratchDisk.create(sandbox, 16L << 20)) {
            mustRun("mkfs.ext4", "-q", "-F", "-m", "0", disk.device().toString());
            mustRun("mount", disk.device().toString(), mnt.toString());
            Path store = mnt.resolve("store");
            Vsm vsm = dirStorage(store);
            try {
                // sparse 64 MiB bases on a 16 MiB file system
                vsm.run("alloc", "local", "100", "", "64M", "--format", "raw").ok();
                vsm.run("alloc", "local", "102", "", "64M", "--format", "qcow2").ok();
                vsm.run("create-base", "local:100/vm-100-disk-0.raw").ok();
                vsm.run("create-base", "local:102/vm-102-disk-0.qcow2").ok();
                String[] bases = {"local:100/base-100-disk-0.raw", "local:102/base-102-disk-0.qcow2"};

                for (String mode : new String[] {"falloc", "full"}) {
                    withPreallocation(vsm, store, mode, "");
                    for (String base : bases) {
                        Map<String, String> before = Tree.snapshot(store);
                        Vsm.Result r = vsm.run("clone", base, "101");
                        assertThat(r.exit())
                                .as("%s %s: %s", base, mode, r.err())
                                .isEqualTo(1);
                        assertThat(r.err().strip())
                                .matches("storage 'local': not enough free space for a preallocated image "
                                        + "\\(67108864 bytes requested with preallocation=" + mode
                                        + ", \\d+ bytes free in '" + store + "'\\)");
                        assertThat(Tree.snapshot(store))
                                .as("nothing made for %s", base)
                                .isEqualTo(before);
                    }
                }
                // no subclusters: qemu-img gets no preallocation for a backed image, so the clone is sparse and fits
                withPreallocation(vsm, store, "full", "    qcow2-subclusters: off\n");
                vsm.run("clone", bases[0], "101").ok();
                // the storage's preallocation metadata: sparse too
                withPreallocation(vsm, store, "metadata", "");
                vsm.run("clone", bases[1], "101").ok();
                assertThat(vsm.run("list", "local", "--vmid", "101").ok().lines())
                        .hasSize(3);
            } finally {
                vsm.releaseImmutable();
                run("chattr", "-R", "-f", "-i", mnt.toString());
                run("umount", mnt.toString());
            }
        }
    }

    private static void withPreallocation(Vsm vsm, Path store, String mode, String more) {
        vsm.writeConfig("storages:\n  local:\n    type: dir\n    path: " + store + "\n    content: [images]\n"
                + "    preallocation: " + mode + "\n" + more);
    }

    @RootTest
    @Test
    void lvm2WarningsDoNotFailACommandNorReachStdout() throws Exception {
        try (LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64).create()) {
            // the group's lvm.conf plus a setting lvm2 does not know: every lvm2 command warns on stderr
            Path conf = Files.createDirectories(sandbox.resolve("lvm"));
            Files.writeString(
                    conf.resolve("lvm.conf"),
                    Files.readString(vg.systemDir().resolve("lvm.conf"))
                            + "\nglobal {\n  vsm_test_unknown_setting = 1\n}\n");
            Vsm vsm = LvmSandbox.vsm(sandbox, vg).env("LVM_SYSTEM_DIR", conf.toString());
            Vsm.Result probe = vsm.run("alloc", "san", "100", "", "4M");
            probe.ok();
            assertThat(probe.out()).isEqualTo("successfully created 'san:vm-100-disk-0'\n");
            assertThat(vsm.run("list", "san").ok().lines()).hasSize(2);
            vsm.run("free", "san:vm-100-disk-0").ok();
            assertThat(vg.lvNames()).isEmpty();
            // and it did warn: the same lvm2 command run directly says so
            Map<String, String> env = Map.of("LVM_SYSTEM_DIR", conf.toString(), "LVM_SUPPRESS_FD_WARNINGS", "1");
            var direct = dev.vsm.testing.HostTools.run(env, "/sbin/lvm", "vgs", vg.name());
            assertThat(direct.err()).containsIgnoringCase("vsm_test_unknown_setting");
        }
    }

    private static String mustRun(String... argv) {
        var r = dev.vsm.testing.HostTools.run(Map.of(), argv);
        assertThat(r.exit()).as("%s: %s", String.join(" ", argv), r.err()).isZero();
        return r.out();
    }

    private static void run(String... argv) {
        try {
            Process p = new ProcessBuilder(argv)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            p.waitFor(120, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
