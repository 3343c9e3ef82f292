package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.ThinSandbox;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lvmthin plugin through the real cli/vsm against real lvm2, on a loop VG whose thin pools
 * and volumes are written into its metadata (this host has no device-mapper, so lvm2 cannot
 * create them). list, status, scan, numbering, the over-provisioning guard and create-base run
 * for real; allocation, snapshots, rollback, clones and free are checked by their dry-run argv.
 */
@RootTest
class ThinWalkThroughTest {
    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(128);

    @TempDir
    Path sandbox;

    private Vsm vsm;

    @BeforeEach
    void setUp() {
        ThinSandbox.writeLayout(vg);
        vsm = ThinSandbox.vsm(sandbox, vg);
    }

    private String lv(String name) {
        return vg.name() + "/" + name;
    }

    @Test
    void listShowsThePoolsVolumesOnly() {
        assertThat(vsm.run("list", "thin").ok().lines())
                .containsExactly(
                        "Volid                Format  Type          Size VMID",
                        "thin:base-102-disk-0 raw     images     8388608 102",
                        "thin:vm-100-disk-0   raw     images    16777216 100",
                        "thin:vm-101-disk-0   raw     images     8388608 101");
        JsonNode json = vsm.run("list", "thin", "--vmid", "100", "--output-format", "json")
                .ok()
                .json();
        assertThat(json).hasSize(1);
        assertThat(json.get(0).get("volid").asText()).isEqualTo("thin:vm-100-disk-0");
        assertThat(json.get(0).get("format").asText()).isEqualTo("raw");
    }

    @Test
    void statusIsThePoolsSizeAndUseWithItsMetadata() {
        assertThat(vsm.run("status").ok().lines())
                .containsExactly(
                        "Name        Type     Status     Total (KiB)      Used (KiB) Available (KiB)        %",
                        "thin     lvmthin     active           32768               0           32768    0.00%");
        Vsm.Result r = vsm.run("status", "--output-format", "json").ok();
        JsonNode row = r.json().get(0);
        assertThat(row.get("type").asText()).isEqualTo("lvmthin");
        assertThat(row.get("content").asText()).isEqualTo("images,rootdir");
        assertThat(row.get("total").asLong()).isEqualTo(32L << 20);
        assertThat(row.get("metadata_size").asLong()).isEqualTo(4L << 20);
        assertThat(row.get("metadata_used").asLong()).isZero(); // no percentages without device-mapper
        assertThat(row.get("warnings")).isEmpty();
        assertThat(r.err()).isEmpty();
    }

    @Test
    void aStorageOnAMissingPoolIsInactiveWithAWarning() throws java.io.IOException {
        String config = java.nio.file.Files.readString(vsm.config());
        Vsm.Result add = vsm.run("add", "lvmthin", "gone", "--vgname", vg.name(), "--thinpool", "nopool");
        assertThat(add.exit())
                .as("add activates the storage first (pve's create): %s", add.err())
                .isEqualTo(1);
        assertThat(add.err()).isEqualTo("create storage failed: no such logical volume " + lv("nopool") + "\n");
        assertThat(java.nio.file.Files.readString(vsm.config()))
                .as("nothing written")
                .isEqualTo(config);
        vsm.writeConfig(config + "  gone:\n    type: lvmthin\n    vgname: " + vg.name() + "\n    thinpool: nopool\n");
        Vsm.Result r = vsm.run("status").ok();
        assertThat(r.lines()).anySatisfy(l -> assertThat(l).matches("gone +lvmthin +inactive +0 +0 +0 +0\\.00%"));
        assertThat(r.err()).isEqualTo("no such logical volume " + lv("nopool") + "\n");
    }

    @Test
    void scanLvmthinPrintsThePoolsOfAGroup() {
        assertThat(vsm.run("scan", "lvmthin", vg.name()).ok().out()).isEqualTo("data\nother\n");
        JsonNode json = vsm.run("scan", "lvmthin", vg.name(), "--output-format", "json")
                .ok()
                .json();
        assertThat(json).hasSize(2);
        assertThat(json.get(0).get("lv").asText()).isEqualTo("data");
        assertThat(json.get(0).get("lv_size").asLong()).isEqualTo(32L << 20);
        assertThat(json.get(0).get("metadata_size").asLong()).isEqualTo(4L << 20);
        assertThat(json.get(1).get("lv").asText()).isEqualTo("other");
        vsm.run("scan", "lvmthin", "nosuchvg").badInput("no such volume group 'nosuchvg'");
    }

    @Test
    void allocationRunsPvesArgvWithTheNextNumberOfTheWholeGroup() {
        // vm-100-disk-0 is in this pool, vm-100-disk-1 in the other one: both numbers are taken
        assertThat(vsm.run("alloc", "thin", "100", "", "4M", "--dry-run").ok().out())
                .isEqualTo("+ /sbin/lvchange -ay -K " + lv("data") + "\n"
                        + "+ /sbin/lvcreate -aly -V 4096k --name vm-100-disk-2 --thinpool " + lv("data") + "\n"
                        + "+ /sbin/lvchange --setautoactivation n " + lv("vm-100-disk-2") + "\n"
                        + "would create 'thin:vm-100-disk-2'\n");
        // for real, lvm2 itself refuses here: it cannot create thin volumes without device-mapper
        Vsm.Result real = vsm.run("alloc", "thin", "100", "", "4M");
        assertThat(real.exit()).isEqualTo(1);
        assertThat(real.err()).startsWith("lvcreate '" + lv("vm-100-disk-2") + "' error: ");
        assertThat(vg.lvNames()).doesNotContain("vm-100-disk-2");
    }

    @Test
    void theOverprovisionGuardRefusesWithTheSumThePoolSizeAndTheRatio() {
        Vsm guarded = ThinSandbox.vsm(sandbox, vg, "max-overprovision: 2");
        Vsm.Result r = guarded.run("alloc", "thin", "100", "", "13M", "--dry-run");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err())
                .isEqualTo("storage 'thin': cannot allocate vm-100-disk-2 (13631488 bytes): the thin volumes of pool "
                        + lv("data")
                        + " would add up to 68157440 bytes (now 54525952), more than max-overprovision 2 x the pool size "
                        + "33554432 bytes\n");
        assertThat(guarded.run("alloc", "thin", "100", "", "12M", "--dry-run")
                        .ok()
                        .out())
                .contains("--name vm-100-disk-2 ");
        Vsm.Result clone = guarded.run("clone", "thin:base-102-disk-0", "103", "--dry-run");
        assertThat(clone.exit()).as(clone.err()).isZero(); // 52 + 8 = 60 MiB fits under 64
        Vsm.Result tight =
                ThinSandbox.vsm(sandbox, vg, "max-overprovision: 1.75").run("clone", "thin:base-102-disk-0", "103");
        assertThat(tight.exit()).isEqualTo(1);
        assertThat(tight.err()).contains("more than max-overprovision 1.75 x the pool size 33554432 bytes");
    }

    @Test
    void snapshotsRollbackAndDeletionByTheirArgv() {
        assertThat(vsm.run("snapshot", "thin:vm-100-disk-0", "s2", "--dry-run")
                        .ok()
                        .out())
                .isEqualTo("+ /sbin/lvchange -ay -K " + lv("data") + "\n"
                        + "+ /sbin/lvcreate -n snap_vm-100-disk-0_s2 -pr -s " + lv("vm-100-disk-0") + "\n"
                        + "would create snapshot 's2' of 'thin:vm-100-disk-0'\n");
        assertThat(vsm.run("rollback", "thin:vm-100-disk-0", "s1", "--dry-run")
                        .ok()
                        .out())
                .isEqualTo("+ /sbin/lvchange -ay -K " + lv("data") + "\n"
                        + "+ /sbin/lvremove -f " + lv("vm-100-disk-0") + " --select lv_uuid="
                        + vg.uuid("vm-100-disk-0") + "\n"
                        + "+ /sbin/lvcreate -kn -n vm-100-disk-0 -s " + lv("snap_vm-100-disk-0_s1") + "\n"
                        + "+ /sbin/lvchange --setautoactivation n " + lv("vm-100-disk-0") + "\n"
                        + "would roll back 'thin:vm-100-disk-0' to snapshot 's1'\n");
        assertThat(vsm.run("snapshot-delete", "thin:vm-100-disk-0", "s1", "--dry-run")
                        .ok()
                        .out())
                .isEqualTo("+ /sbin/lvchange -ay -K " + lv("data") + "\n"
                        + "+ /sbin/lvremove -f " + lv("snap_vm-100-disk-0_s1") + " --select lv_uuid="
                        + vg.uuid("snap_vm-100-disk-0_s1") + "\n"
                        + "would remove snapshot 's1' of 'thin:vm-100-disk-0'\n");
        assertThat(vsm.run("free", "thin:vm-100-disk-0", "--dry-run").ok().out())
                .isEqualTo("+ /sbin/lvchange -ay -K " + lv("data") + "\n"
                        + "+ /sbin/lvremove -f " + lv("snap_vm-100-disk-0_s1") + " --select lv_uuid="
                        + vg.uuid("snap_vm-100-disk-0_s1") + "\n"
                        + "+ /sbin/lvremove -f " + lv("vm-100-disk-0") + " --select lv_uuid="
                        + vg.uuid("vm-100-disk-0") + "\n"
                        + "would remove volume 'thin:vm-100-disk-0'\n");
        assertThat(vg.lvNames()).contains("vm-100-disk-0", "snap_vm-100-disk-0_s1");
    }

    @Test
    void createBaseForRealThenLinkedClonesByTheirArgv() {
        assertThat(vsm.run("create-base", "thin:vm-101-disk-0").ok().out())
                .isEqualTo("successfully created base volume 'thin:base-101-disk-0'\n");
        assertThat(vg.lvNames()).contains("base-101-disk-0").doesNotContain("vm-101-disk-0");
        assertThat(vg.lvm("lvs", "--noheadings", "-o", "lv_attr", lv("base-101-disk-0"))
                        .strip())
                .matches("Vri-..tz-k");
        assertThat(vsm.run("info", "thin:base-101-disk-0").ok().out())
                .contains("isBase: true", "features: clone,copy,sparseinit");

        assertThat(vsm.run("clone", "thin:base-101-disk-0", "103", "--dry-run")
                        .ok()
                        .out())
                .isEqualTo("+ /sbin/lvchange -ay -K " + lv("data") + "\n"
                        + "+ /sbin/lvcreate -n vm-103-disk-0 -prw -kn -s " + lv("base-101-disk-0") + "\n"
                        + "+ /sbin/lvchange --setautoactivation n " + lv("vm-103-disk-0") + "\n"
                        + "would create linked clone 'thin:vm-103-disk-0'\n");
        assertThat(vsm.run("clone", "thin:vm-100-disk-0", "104", "--snapshot", "s1", "--dry-run")
                        .ok()
                        .out())
                .contains("+ /sbin/lvcreate -n vm-104-disk-0 -prw -kn -s " + lv("snap_vm-100-disk-0_s1") + "\n");
    }

    @Test
    void renameForReal() {
        assertThat(vsm.run("rename", "thin:vm-101-disk-0", "105").ok().out())
                .isEqualTo("renamed 'thin:vm-101-disk-0' to 'thin:vm-105-disk-0'\n");
        assertThat(vg.tags("vm-105-disk-0")).containsExactly("pve-vm-105");
        vsm.run("rename", "thin:vm-100-disk-0", "105")
                .badInput("can't rename volume 'vm-100-disk-0' - snapshot 'snap_vm-100-disk-0_s1' exists");
    }

    @Test
    void addAThinStorageFromTheCommandLine() throws java.io.IOException {
        Vsm fresh = new Vsm(java.nio.file.Files.createDirectory(sandbox.resolve("fresh"))).env(vg.environment());
        fresh.run(
                        "add",
                        "lvmthin",
                        "local-lvm",
                        "--vgname",
                        vg.name(),
                        "--thinpool",
                        "data",
                        "--max-overprovision",
                        "1.5")
                .ok();
        assertThat(fresh.run("status", "--storage", "local-lvm").ok().lines().get(1))
                .matches("local-lvm +lvmthin +active +32768 .*");
        fresh.run("add", "lvmthin", "bad", "--vgname", vg.name(), "--thinpool", "data", "--max-overprovision", "0")
                .badInput("max-overprovision: value '0' does not match");
    }
}
