package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.ThinSandbox;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to the lvmthin plugin through the real cli/vsm: exit status 2, one line on stderr,
 * and nothing changed — neither the sandbox (config) nor the volume group (its LVs, sizes,
 * attributes and tags as lvs reports them).
 */
@RootTest
class ThinBadInputTest {
    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(128);

    @TempDir
    Path sandbox;

    private Vsm vsm;

    @BeforeEach
    void setUp() {
        ThinSandbox.writeLayout(vg);
        vsm = ThinSandbox.vsm(sandbox, vg, "max-overprovision: 4");
    }

    private String lvmState() {
        return vg.lvm(
                "lvs",
                "-a",
                "--noheadings",
                "--units",
                "b",
                "-o",
                "lv_name,lv_size,lv_attr,pool_lv,origin,lv_tags",
                vg.name());
    }

    private void refused(String message, String... args) {
        Map<String, String> files = Tree.snapshot(sandbox);
        String lvs = lvmState();
        vsm.run(args).badInput(message);
        assertThat(Tree.snapshot(sandbox))
                .as("vsm %s changed files", String.join(" ", args))
                .isEqualTo(files);
        assertThat(lvmState())
                .as("vsm %s changed the volume group", String.join(" ", args))
                .isEqualTo(lvs);
    }

    @Test
    void badNamesAtAllocation() {
        refused("illegal name 'vm-101-disk-7' - should be 'vm-100-*'", "alloc", "thin", "100", "vm-101-disk-7", "4M");
        refused("lvm name 'vm-100 x' contains illegal characters", "alloc", "thin", "100", "vm-100 x", "4M");
        refused("unable to parse lvm volume name 'disk-1'", "alloc", "thin", "100", "disk-1", "4M");
        refused(
                "disk image '/dev/" + vg.name() + "/vm-100-disk-0' already exists",
                "alloc",
                "thin",
                "100",
                "vm-100-disk-0",
                "4M");
        refused("does not support format 'qcow2'", "alloc", "thin", "100", "", "4M", "--format", "qcow2");
    }

    @Test
    void missingVolumes() {
        Vsm.Result gone = vsm.run("free", "thin:vm-100-disk-9").ok(); // pve warns and succeeds
        assertThat(gone.err()).isEqualTo("warning: volume 'thin:vm-100-disk-9' does not exist - nothing to remove\n");
        refused("unable to parse lvm volume name 'snap_vm-100-disk-0_s1'", "free", "thin:snap_vm-100-disk-0_s1");
        refused("volume 'thin:vm-100-disk-9' does not exist", "create-base", "thin:vm-100-disk-9");
        refused("volume 'thin:base-100-disk-9' does not exist", "clone", "thin:base-100-disk-9", "101");
    }

    @Test
    void snapshots() {
        refused("invalid snapshot name '1st'", "snapshot", "thin:vm-100-disk-0", "1st");
        refused("snapshot name 'current' is reserved", "snapshot", "thin:vm-100-disk-0", "current");
        refused("snapshot 's1' of volume 'thin:vm-100-disk-0' already exists", "snapshot", "thin:vm-100-disk-0", "s1");
        refused(
                "snapshot feature is not available for volume 'thin:base-102-disk-0'",
                "snapshot",
                "thin:base-102-disk-0",
                "s1");
        refused(
                "snapshot 'nope' of volume 'thin:vm-100-disk-0' does not exist",
                "rollback",
                "thin:vm-100-disk-0",
                "nope");
        refused(
                "snapshot 'nope' of volume 'thin:vm-100-disk-0' does not exist",
                "snapshot-delete",
                "thin:vm-100-disk-0",
                "nope");
        refused(
                "snapshot 'nope' of volume 'thin:vm-100-disk-0' does not exist",
                "clone",
                "thin:vm-100-disk-0",
                "101",
                "--snapshot",
                "nope");
        refused("invalid snapshot name 'a/b'", "rollback", "thin:vm-100-disk-0", "a/b");
    }

    @Test
    void templatesAndClones() {
        refused("create_base not possible with base image", "create-base", "thin:base-102-disk-0");
        refused(
                "unable to create base volume - found snapshot 'snap_vm-100-disk-0_s1'",
                "create-base",
                "thin:vm-100-disk-0");
        refused("clone_image only works on base images", "clone", "thin:vm-101-disk-0", "103");
    }

    @Test
    void badConfigurationAndScans() {
        refused("max-overprovision: value '-1' does not match", "set", "thin", "--max-overprovision", "-1");
        refused("thinpool", "set", "thin", "--thinpool", "other");
        refused("thinpool", "add", "lvmthin", "t2", "--vgname", vg.name(), "--thinpool", "bad pool");
        refused("lvm name 'bad vg' contains illegal characters", "scan", "lvmthin", "bad vg");
    }
}
