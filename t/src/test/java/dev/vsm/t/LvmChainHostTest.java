package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.LvmSandbox;
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
 * lvm with {@code snapshot-as-volume-chain} on the host, where nothing is activated (a VG on a
 * loop device, lvm2 told not to activate): the option's rules, {@code status --format}, the dry
 * run of a qcow2 alloc, listing inactive qcow2 LVs (#6819), and bad input refused before any LV is
 * touched. What activates or formats an LV is {@link LvmChainTest}'s, in the guest.
 */
@RootTest
class LvmChainHostTest {
    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);

    @TempDir
    Path sandbox;

    private Vsm vsm;

    @BeforeEach
    void setUp() {
        vsm = LvmSandbox.vsm(sandbox, vg, "snapshot-as-volume-chain: 1");
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

    private JsonNode formats() {
        return vsm.run("status", "--format", "--output-format", "json")
                .ok()
                .json()
                .get(0)
                .get("formats");
    }

    @Test
    void theOptionAddsQcow2AndCannotBeClearedWhileAQcow2VolumeExists() {
        assertThat(formats().get("supported").toString())
                .as("pve's get_formats")
                .isEqualTo("[\"qcow2\",\"raw\"]");
        assertThat(formats().get("default").asText()).isEqualTo("qcow2");

        vg.createLv("vm-100-disk-0.qcow2", 4);
        refused(
                "san - cannot disable 'snapshot-as-volume-chain' while a qcow2 image exists",
                "set",
                "san",
                "--delete",
                "snapshot-as-volume-chain");
        refused(
                "san - cannot disable 'snapshot-as-volume-chain' while a qcow2 image exists",
                "set",
                "san",
                "--snapshot-as-volume-chain",
                "0");
        vg.lvm("lvremove", "-f", vg.name() + "/vm-100-disk-0.qcow2");

        vg.createLv("vm-100-disk-0", 4);
        vsm.run("set", "san", "--delete", "snapshot-as-volume-chain").ok();
        assertThat(formats().get("supported").toString())
                .as("raw only without it")
                .isEqualTo("[\"raw\"]");
        assertThat(formats().get("default").asText()).isEqualTo("raw");
        refused(
                "snapshot-as-volume-chain option need to be enabled to use qcow2 format",
                "alloc",
                "san",
                "100",
                "",
                "4M",
                "--format",
                "qcow2");
        vsm.run("set", "san", "--snapshot-as-volume-chain", "1").ok();
        assertThat(formats().get("default").asText()).isEqualTo("qcow2");
    }

    @Test
    void aDryRunOfAQcow2AllocPrintsEveryLvmAndQemuImgLine() {
        String before = lvmState();
        Vsm.Result r = vsm.run("alloc", "san", "100", "", "1M", "--format", "qcow2", "--dry-run")
                .ok();
        String name = vg.name();
        // qemu-img measure --size 1024K -O qcow2: fully-allocated 1376256 bytes = 1344 KiB
        assertThat(r.out())
                .contains("+ /sbin/lvcreate -aly -Wy --yes --size 1344k --name vm-100-disk-0.qcow2 "
                        + "--setautoactivation n --addtag pve-vm-100 --addtag @pve-vm-100-disk-0.qcow2 " + name + "\n")
                .contains("+ /sbin/lvchange -aey --select 'vg_name = \"" + name
                        + "\" && lv_name =~ '\\''^(vm-100-disk-0|snap_vm-100-disk-0_.+)\\.qcow2$'\\'''\n")
                .contains("+ /sbin/lvchange --refresh --select 'vg_name = \"" + name)
                .contains(" create -o preallocation=metadata -f qcow2 /dev/" + name + "/vm-100-disk-0.qcow2 1024K\n");
        assertThat(lvmState()).isEqualTo(before);
        // the default format with the option is qcow2, as in pve
        assertThat(vsm.run("alloc", "san", "100", "", "1M", "--dry-run").ok().out())
                .contains("--name vm-100-disk-0.qcow2 ");
    }

    /**
     * vsm's {@code shrink-snapshot-lvs}: set with {@code vsm set}, kept in the configuration;
     * under it a qcow2 image is made without preallocation (so its end is what was written), the LV
     * measured as before. What shrinks and grows is {@link LvmChainTest}'s, in the guest.
     */
    @Test
    void shrinkingSnapshotLvsMakesImagesWithoutPreallocation() {
        vsm.run("set", "san", "--shrink-snapshot-lvs", "1").ok();
        assertThat(vsm.config()).content().contains("shrink-snapshot-lvs");
        String before = lvmState();
        assertThat(vsm.run("alloc", "san", "100", "", "1M", "--format", "qcow2", "--dry-run")
                        .ok()
                        .out())
                .contains("+ /sbin/lvcreate -aly -Wy --yes --size 1344k --name vm-100-disk-0.qcow2 ")
                .contains(" create -o preallocation=off -f qcow2 /dev/" + vg.name() + "/vm-100-disk-0.qcow2 1024K\n");
        assertThat(lvmState()).isEqualTo(before);
        vsm.run("set", "san", "--delete", "shrink-snapshot-lvs").ok();
        assertThat(vsm.run("alloc", "san", "100", "", "1M", "--format", "qcow2", "--dry-run")
                        .ok()
                        .out())
                .contains(" create -o preallocation=metadata -f qcow2 ");
    }

    /** #6819: an inactive qcow2 LV is listed with pve's approximate-size, its LV's size, and is not activated. */
    @Test
    void listingGivesInactiveQcow2LvsAnApproximateSizeAndSkipsSnapshotLvs() {
        vg.createLv("vm-100-disk-0.qcow2", 8);
        vg.createLv("snap_vm-100-disk-0_s1.qcow2", 4);
        vg.createLv("vm-100-disk-1", 4);
        JsonNode list = vsm.run("list", "san", "--output-format", "json").ok().json();
        assertThat(list).hasSize(2);
        JsonNode qcow2 =
                list.get(0).get("volid").asText().equals("san:vm-100-disk-0.qcow2") ? list.get(0) : list.get(1);
        JsonNode raw = qcow2 == list.get(0) ? list.get(1) : list.get(0);
        assertThat(qcow2.get("volid").asText()).isEqualTo("san:vm-100-disk-0.qcow2");
        assertThat(qcow2.get("approximate-size").asLong()).isEqualTo(8L * 1024 * 1024);
        assertThat(qcow2.has("size")).isFalse();
        assertThat(raw.get("size").asLong()).isEqualTo(4L * 1024 * 1024);
        assertThat(raw.has("approximate-size")).isFalse();
        assertThat(vsm.run("list", "san").ok().out()).contains(" ~8388608 100\n");
    }

    /**
     * A VM manager's activation of a snapshot, as pve's {@code activate_volume} with a snapshot
     * name: the whole chain, exclusively, by {@code --select}; its deactivation does nothing while
     * the snapshot's LV has no device node. Bad input to the contract's commands is refused with
     * pve's words before any LV is touched.
     */
    @Test
    void aSnapshotsActivationDryRunAndTheContractsBadInputChangeNothing() {
        vg.createLv("vm-100-disk-0.qcow2", 4);
        vg.createLv("snap_vm-100-disk-0_s1.qcow2", 4);
        vg.createLv("vm-100-disk-1", 4);
        String volid = "san:vm-100-disk-0.qcow2";
        String select = " --select 'vg_name = \"" + vg.name()
                + "\" && lv_name =~ '\\''^(vm-100-disk-0|snap_vm-100-disk-0_.+)\\.qcow2$'\\'''\n";
        String before = lvmState();
        assertThat(vsm.run("activate", volid, "--snapshot", "s1", "--dry-run")
                        .ok()
                        .out())
                .isEqualTo("+ /sbin/lvchange -aey" + select + "+ /sbin/lvchange --refresh" + select + "would activate '"
                        + volid + "' snapshot 's1'\n");
        assertThat(vsm.run("deactivate", volid, "--snapshot", "s1", "--dry-run")
                        .ok()
                        .out())
                .as("nothing to deactivate: the snapshot's LV has no device node")
                .isEqualTo("would deactivate '" + volid + "' snapshot 's1'\n");
        assertThat(lvmState()).isEqualTo(before);

        String missing = "snapshot 'nope' does not exist on 'vm-100-disk-0.qcow2'";
        refused(missing, "activate", volid, "--snapshot", "nope");
        refused(missing, "deactivate", volid, "--snapshot", "nope");
        refused("snapshot is working with qcow2 format only", "activate", "san:vm-100-disk-1", "--snapshot", "s1");
        refused("snapshot is working with qcow2 format only", "deactivate", "san:vm-100-disk-1", "--snapshot", "s1");
        refused("can't rename snapshot of 'raw' volume", "rename-snapshot", "san:vm-100-disk-1", "s1", "s2");
        refused("can't rollback snapshot for 'raw' volume", "rollback-check", "san:vm-100-disk-1", "s1");
        refused(
                "snapshot 's1' does not exist on 'vm-100-disk-1'",
                "resize",
                "san:vm-100-disk-1",
                "8M",
                "--snapshot",
                "s1");
        refused("no such volume 'vm-100-disk-2.qcow2'", "rename-snapshot", "san:vm-100-disk-2.qcow2", "s1", "s2");
        refused("no such volume 'vm-100-disk-2.qcow2'", "rollback-check", "san:vm-100-disk-2.qcow2", "s1");
        refused("snapshot name 'current' is reserved", "rename-snapshot", volid, "s1", "current");
        refused("invalid snapshot name", "resize", volid, "8M", "--snapshot", "-x");
    }

    @Test
    void badInputChangesNothing() {
        vg.createLv("vm-100-disk-0", 4);
        refused("snapshot feature is not available", "snapshot", "san:vm-100-disk-0", "s1");
        refused("can't rollback snapshot for 'raw' volume", "rollback", "san:vm-100-disk-0", "s1");
        refused("can't delete snapshot for 'raw' volume", "snapshot-delete", "san:vm-100-disk-0", "s1");
        refused("invalid snapshot name '9lives'", "snapshot", "san:vm-100-disk-1.qcow2", "9lives");
        refused("snapshot name 'current' is reserved", "snapshot", "san:vm-100-disk-1.qcow2", "current");
        refused("no such volume 'vm-100-disk-1.qcow2'", "snapshot", "san:vm-100-disk-1.qcow2", "s1");
        refused("no such volume 'vm-100-disk-1.qcow2'", "rollback", "san:vm-100-disk-1.qcow2", "s1");
        refused("no such volume 'vm-100-disk-1.qcow2'", "snapshot-delete", "san:vm-100-disk-1.qcow2", "s1");
        refused(
                "unable to parse lvm volume name 'snap_vm-100-disk-0_s1.qcow2'",
                "free",
                "san:snap_vm-100-disk-0_s1.qcow2");
        refused(
                "volume name 'vm-100-disk-5' does not match requested format 'qcow2' (did you mean 'vm-100-disk-5.qcow2'?)",
                "alloc",
                "san",
                "100",
                "vm-100-disk-5",
                "1M",
                "--format",
                "qcow2");
        Path image = sandbox.resolve("image.qcow2");
        dev.vsm.testing.HostTools.mustRun(Map.of(), "qemu-img", "create", "-q", "-f", "qcow2", image.toString(), "1M");
        refused(
                "importing into qcow2 volumes on lvm is not supported by vsm yet",
                "import",
                "san",
                "100",
                image.toString(),
                "--format",
                "qcow2");
    }
}
