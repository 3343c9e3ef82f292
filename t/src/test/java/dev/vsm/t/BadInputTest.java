package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every bad input of the foundation issue: exit status 2, one line on stderr, and nothing
 * changed — no file under the sandbox (storage data and config) differs afterwards.
 */
class BadInputTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;

    @org.junit.jupiter.api.AfterEach
    void release() {
        vsm.releaseImmutable();
    }

    @BeforeEach
    void setUp() throws Exception {
        vsm = new Vsm(sandbox);
        vsm.writeConfig("""
                storages:
                  local:
                    type: dir
                    path: %s
                    content: [images, iso, backup]
                """.formatted(sandbox.resolve("store")));
        vsm.run("alloc", "local", "100", "vm-100-disk-0.raw", "1M").ok();
        vsm.run("alloc", "local", "100", "", "1M", "--format", "qcow2").ok();
        vsm.run("create-base", "local:100/vm-100-disk-1.qcow2").ok();
        vsm.run("clone", "local:100/base-100-disk-1.qcow2", "101").ok();
    }

    /** Runs vsm and checks it was refused as bad input with the message, changing nothing. */
    private void refused(String message, String... args) {
        Map<String, String> before = Tree.snapshot(sandbox);
        vsm.run(args).badInput(message);
        assertThat(Tree.snapshot(sandbox))
                .as("vsm %s changed files", String.join(" ", args))
                .isEqualTo(before);
    }

    @Test
    void unknownStorage() {
        refused("storage 'nosuch' does not exist", "alloc", "nosuch", "100", "", "1M");
        refused("storage 'nosuch' does not exist", "list", "nosuch");
        refused("storage 'nosuch' does not exist", "path", "nosuch:100/vm-100-disk-0.raw");
    }

    @Test
    void malformedVolumeIds() {
        refused("unable to parse volume ID 'foo'", "path", "foo");
        refused("unable to parse volume ID '1a:100/x.raw'", "free", "1a:100/x.raw");
        refused("unable to parse volume ID ':x'", "info", ":x");
    }

    @Test
    void volumeNamesTheTypeDoesNotKnow() {
        refused("unable to parse directory volume name 'bogus/x'", "path", "local:bogus/x");
        refused("unable to parse volume filename 'vm-100-disk-0.vhdx'", "path", "local:100/vm-100-disk-0.vhdx");
        refused("unable to parse directory volume name '../../etc/passwd'", "free", "local:../../etc/passwd");
    }

    @Test
    void badSizes() {
        for (String size : new String[] {"0", "-1", "abc", "4X", "1.5G", ""}) {
            refused("size", "alloc", "local", "100", "", size);
        }
        refused("size", "resize", "local:100/vm-100-disk-0.raw", "4X");
    }

    @Test
    void badVmids() {
        refused("vmid", "alloc", "local", "abc", "", "1M");
        refused("vmid", "alloc", "local", "0", "", "1M");
        refused("vmid", "clone", "local:100/base-100-disk-1.qcow2", "-5");
    }

    @Test
    void formatThatContradictsTheName() {
        refused(
                "format: different storage formats (raw != qcow2)",
                "alloc",
                "local",
                "100",
                "vm-100-disk-5.qcow2",
                "1M",
                "--format",
                "raw");
    }

    @Test
    void preallocationTheFormatLacks() {
        refused(
                "preallocation mode 'full' not supported by format 'vmdk'",
                "alloc",
                "local",
                "100",
                "",
                "1M",
                "--format",
                "vmdk",
                "--preallocation",
                "full");
        refused(
                "preallocation mode 'bogus' not supported by format 'qcow2'",
                "alloc",
                "local",
                "100",
                "",
                "1M",
                "--format",
                "qcow2",
                "--preallocation",
                "bogus");
    }

    @Test
    void nameThatExists() {
        refused("already exists", "alloc", "local", "100", "vm-100-disk-0.raw", "1M");
    }

    @Test
    void baseWithLinkedClones() {
        refused(
                "base volume '100/base-100-disk-1.qcow2' is still in use by linked clones",
                "free",
                "local:100/base-100-disk-1.qcow2");
    }

    @Test
    void configEditsThatAreWrong() {
        refused("unexpected property 'bogus'", "add", "dir", "other", "--path", "/tmp/x", "--bogus", "1");
        refused("can't change value of fixed parameter 'path'", "set", "local", "--path", "/elsewhere");
        refused("storage ID '1bad' contains illegal characters", "add", "dir", "1bad", "--path", "/tmp/x");
        refused("storage ID 'local' already defined", "add", "dir", "local", "--path", "/tmp/x");
        refused("missing value for required option 'path'", "add", "dir", "other");
        refused("unsupported type 'nosuchtype'", "add", "nosuchtype", "other", "--path", "/tmp/x");
        refused("does not have a value in the enumeration", "set", "local", "--preallocation", "sometimes");
    }

    @Test
    void badConfigFilesNameFileLineAndKey() throws Exception {
        vsm.writeConfig("""
                storages:
                  local:
                    type: dir
                    path: %s
                    preallocation: sometimes
                """.formatted(sandbox.resolve("store")));
        refused(vsm.config() + ":5", "status");
        vsm.writeConfig("""
                storages:
                  local:
                    type: dir
                    path: %s
                    disable: maybe
                """.formatted(sandbox.resolve("store")));
        refused("disable", "list", "local");
        vsm.writeConfig("storages:\n  local: [unclosed\n");
        refused(vsm.config().toString(), "status");
        vsm.writeConfig("");
        refused(vsm.config().toString(), "status");
        Files.delete(vsm.config());
        Files.createDirectory(vsm.config()); // unreadable as a file, even for root
        refused(vsm.config() + ": not a regular file", "status");
    }

    @Test
    void aFailingQemuImgLeavesNothingBehind() throws Exception {
        Path fake = sandbox.resolve("bin/qemu-img");
        Files.createDirectories(fake.getParent());
        // creates the image for real, then fails as a full disk would
        Files.writeString(
                fake, "#!/bin/sh\nqemu-img \"$@\" >/dev/null\necho 'qemu-img: No space left on device' >&2\nexit 1\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        vsm.env("VSM_QEMU_IMG", fake.toString());
        Map<String, String> before = Tree.snapshot(sandbox.resolve("store"));
        Vsm.Result r = vsm.run("alloc", "local", "102", "", "1M", "--format", "qcow2");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err().strip()).isEqualTo("unable to create image: qemu-img: No space left on device");
        assertThat(Tree.snapshot(sandbox.resolve("store"))).isEqualTo(before);
    }
}
