package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.LvmSandbox;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to the LVM plugin through the real cli/vsm: exit status 2, one line on stderr, and
 * nothing changed — neither the sandbox (config) nor the volume group (LVs, sizes, tags).
 */
@RootTest
class LvmBadInputTest {
    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);

    @TempDir
    Path sandbox;

    private Vsm vsm;

    @BeforeEach
    void setUp() {
        vsm = LvmSandbox.vsm(sandbox, vg, "saferemove: true");
        vsm.run("alloc", "san", "100", "", "8M").ok();
    }

    private String lvmState() {
        return vg.lvm("lvs", "--noheadings", "--units", "b", "-o", "lv_name,lv_size,lv_tags", vg.name());
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
    void badVolumeNames() {
        refused("lvm name 'vm-100 disk' contains illegal characters", "alloc", "san", "100", "vm-100 disk", "4M");
        refused("unable to parse lvm volume name 'disk-1'", "alloc", "san", "100", "disk-1", "4M");
        refused(
                "unable to parse lvm volume name 'del-vm-100-disk-1'",
                "alloc",
                "san",
                "100",
                "del-vm-100-disk-1",
                "4M");
        refused("lvm name '../x' contains illegal characters", "free", "san:../x");
        refused("unable to parse lvm volume name 'root'", "path", "san:root");
        // a volume already gone: pve's warning and success, which migration cleanups rely on
        List<String> lvs = vg.lvNames();
        Vsm.Result gone = vsm.run("free", "san:vm-100-disk-9").ok();
        assertThat(gone.err()).isEqualTo("warning: volume 'san:vm-100-disk-9' does not exist - nothing to remove\n");
        assertThat(gone.out()).isEmpty();
        assertThat(vg.lvNames()).isEqualTo(lvs);
    }

    @Test
    void takenNames() {
        refused(
                "disk image '/dev/" + vg.name() + "/vm-100-disk-0' already exists",
                "alloc",
                "san",
                "100",
                "vm-100-disk-0",
                "4M");
    }

    @Test
    void formats() {
        refused(
                "snapshot-as-volume-chain option need to be enabled to use qcow2 format",
                "alloc",
                "san",
                "100",
                "",
                "4M",
                "--format",
                "qcow2");
        refused(
                "snapshot-as-volume-chain option need to be enabled to use qcow2 format",
                "alloc",
                "san",
                "100",
                "vm-100-disk-4.qcow2",
                "4M");
        refused(
                "volume name 'vm-100-disk-4' does not match requested format 'qcow2' (did you mean 'vm-100-disk-4.qcow2'?)",
                "alloc",
                "san",
                "100",
                "vm-100-disk-4",
                "4M",
                "--format",
                "qcow2");
        refused("does not support format 'vmdk'", "alloc", "san", "100", "", "4M", "--format", "vmdk");
    }

    @Test
    void whatPlainLvmCannotDo() {
        // the engine refuses what a storage's operations() leaves out, in one wording for every plugin
        refused("storage 'san' (type lvm) cannot create base volumes", "create-base", "san:vm-100-disk-0");
        refused("storage 'san' (type lvm) cannot clone volumes", "clone", "san:vm-100-disk-0", "101");
        refused(
                "storage 'san' (type lvm) cannot set notes and protection of volumes",
                "update-attributes",
                "san:vm-100-disk-0",
                "--notes",
                "x");
        refused("shrinking", "resize", "san:vm-100-disk-0", "4M");
    }

    @Test
    void importMetadataIsRefusedAsPveRefusesIt() {
        // pve's get_import_metadata asks the plugin before the volume name (pve: 'storage does not
        // support the importer API'; vsm: the engine's one wording for a missing operation)
        String refusal = "storage 'san' (type lvm) cannot describe guests to import (import-metadata)";
        refused(refusal, "import-metadata", "san:import/guest.ova");
        refused(refusal, "import-metadata", "san:vm-100-disk-0");
    }

    @Test
    void badConfiguration() {
        refused(
                "'base' is not supported by vsm",
                "add",
                "lvm",
                "iscsi-lvm",
                "--vgname",
                "vg1",
                "--base",
                "iscsi0:0.0.1.scsi-1");
        refused("vgname", "add", "lvm", "other", "--vgname", "my vg");
        refused("saferemove-stepsize", "add", "lvm", "other", "--vgname", "vg1", "--saferemove-stepsize", "3");
        refused("vgname", "set", "san", "--vgname", "othervg");
        vsm.run("set", "san", "--snapshot-as-volume-chain", "1").ok();
        JsonNode formats = vsm.run("status", "--format", "--output-format", "json")
                .json()
                .get(0)
                .get("formats");
        assertThat(formats.get("supported").toString())
                .as("pve's get_formats with the option (LvmChainHostTest has the rest)")
                .isEqualTo("[\"qcow2\",\"raw\"]");
        assertThat(formats.get("default").asText()).isEqualTo("qcow2");
        vsm.run("set", "san", "--delete", "snapshot-as-volume-chain").ok();
        refused(
                "'shrink-snapshot-lvs' needs 'snapshot-as-volume-chain'; set both or neither",
                "set",
                "san",
                "--shrink-snapshot-lvs",
                "1");
        refused("shrink-snapshot-lvs", "set", "san", "--shrink-snapshot-lvs", "maybe");
        refused(
                "'shrink-snapshot-lvs' needs 'snapshot-as-volume-chain'",
                "add",
                "lvm",
                "other",
                "--vgname",
                "vg1",
                "--shrink-snapshot-lvs",
                "1");
        vsm.run("set", "san", "--snapshot-as-volume-chain", "1", "--shrink-snapshot-lvs", "1")
                .ok();
        refused(
                "'shrink-snapshot-lvs' needs 'snapshot-as-volume-chain'",
                "set",
                "san",
                "--delete",
                "snapshot-as-volume-chain");
    }

    @Test
    void anAbsurdSaferemoveThroughputIsRefusedWhenGivenAndWhenTheFileIsRead() {
        refused(
                "does not match the regex pattern",
                "add",
                "lvm",
                "other",
                "--vgname",
                "vg1",
                "--saferemove_throughput",
                "1234567890123456");
        refused("does not match the regex pattern", "set", "san", "--saferemove_throughput", "99999999999999999999k");
        vsm = LvmSandbox.vsm(sandbox, vg, "saferemove: true", "saferemove_throughput: 1234567890123456");
        refused("saferemove_throughput", "list", "san");
        refused("does not match the regex pattern", "list", "san");
    }
}
