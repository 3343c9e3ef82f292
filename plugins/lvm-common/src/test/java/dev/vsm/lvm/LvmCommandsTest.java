package dev.vsm.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.Command;
import dev.vsm.spi.StorageException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** pve's exact lvm2 command lines (LVMPlugin.pm, LvmThinPlugin.pm) and error prefixes. */
class LvmCommandsTest {
    private static final Path LV = Path.of("/dev/vg0/vm-100-disk-0");

    @Test
    void vgsAsLvmVgs() {
        assertThat(LvmCommands.vgs().argv())
                .containsExactly(
                        "/sbin/vgs",
                        "--separator",
                        ":",
                        "--noheadings",
                        "--units",
                        "b",
                        "--unbuffered",
                        "--nosuffix",
                        "--options",
                        "vg_name,vg_size,vg_free,lv_count");
        assertThat(LvmCommands.vgsWithPvs().argv())
                .endsWith("--options", "vg_name,vg_size,vg_free,lv_count,pv_name,pv_size,pv_free");
    }

    @Test
    void lvsAsLvmListVolumesWithTheTimeFormatAsOneArgument() {
        assertThat(LvmCommands.lvs("vg0").argv())
                .containsExactly(
                        "/sbin/lvs",
                        "--separator",
                        ":",
                        "--noheadings",
                        "--units",
                        "b",
                        "--unbuffered",
                        "--nosuffix",
                        "--config",
                        "report/time_format=\"%s\"",
                        "--options",
                        "vg_name,lv_name,lv_size,lv_attr,pool_lv,data_percent,metadata_percent,snap_percent,uuid,tags,metadata_size,time,lv_active",
                        "vg0");
        assertThat(LvmCommands.lvs(null).argv())
                .last()
                .isEqualTo(
                        "vg_name,lv_name,lv_size,lv_attr,pool_lv,data_percent,metadata_percent,snap_percent,uuid,tags,metadata_size,time,lv_active");
    }

    @Test
    void lvSize() {
        Command c = LvmCommands.lvSize(LV);
        assertThat(c.argv())
                .containsExactly(
                        "/sbin/lvs",
                        "--separator",
                        ":",
                        "--noheadings",
                        "--units",
                        "b",
                        "--unbuffered",
                        "--nosuffix",
                        "--options",
                        "lv_size",
                        "/dev/vg0/vm-100-disk-0");
        assertThat(c.errorPrefix()).isEqualTo("can't get size of '/dev/vg0/vm-100-disk-0'");
    }

    @Test
    void lvcreateAsPve() {
        Command c = LvmCommands.lvcreate("vg0", "vm-100-disk-0", 4194304, List.of("pve-vm-100"));
        assertThat(c.argv())
                .containsExactly(
                        "/sbin/lvcreate",
                        "-aly",
                        "-Wy",
                        "--yes",
                        "--size",
                        "4194304k",
                        "--name",
                        "vm-100-disk-0",
                        "--setautoactivation",
                        "n",
                        "--addtag",
                        "pve-vm-100",
                        "vg0");
        assertThat(c.errorPrefix()).isEqualTo("lvcreate 'vg0/vm-100-disk-0' error");
        assertThat(LvmCommands.lvcreate("vg0", "x", 1, List.of()).argv()).doesNotContain("--addtag");
    }

    @Test
    void removalAndRenames() {
        assertThat(LvmCommands.lvremove("vg0", "del-vm-100-disk-0").argv())
                .containsExactly("/sbin/lvremove", "-f", "vg0/del-vm-100-disk-0");
        assertThat(LvmCommands.lvremove("vg0", "vm-1-disk-0").errorPrefix())
                .isEqualTo("lvremove 'vg0/vm-1-disk-0' error");
        Command forRemoval = LvmCommands.lvrenameForRemoval("vg0", "vm-100-disk-0", "del-vm-100-disk-0");
        assertThat(forRemoval.argv()).containsExactly("/sbin/lvrename", "vg0", "vm-100-disk-0", "del-vm-100-disk-0");
        assertThat(forRemoval.errorPrefix()).isEqualTo("lvrename 'vg0/vm-100-disk-0' error");
        assertThat(LvmCommands.lvrename("vg0", "a", "b").errorPrefix()).isEqualTo("lvrename 'vg0/a' to 'b' error");
    }

    /** A removal of the LV lvs listed selects it by UUID as well as by name; a UUID of another shape is refused. */
    @Test
    void removalOfAListedLvSelectsItsUuid() {
        String uuid = "jYeLTq-g27J-I7c2-J2l9-QM66-sf5L-1LEGt5";
        LogicalVolume lv = new LogicalVolume(
                "vg0", "vm-100-disk-0", 4096, "-wi-------", "", 0, 0, 0, uuid, List.of(), 0, null, false);
        Command remove = LvmCommands.lvremove(lv);
        assertThat(remove.argv())
                .containsExactly("/sbin/lvremove", "-f", "vg0/vm-100-disk-0", "--select", "lv_uuid=" + uuid);
        assertThat(remove.errorPrefix()).isEqualTo("lvremove 'vg0/vm-100-disk-0' error");
        assertThat(LvmCommands.lvremoveSnapshot(lv.withName("snap_vm-100-disk-0_s1"))
                        .argv())
                .containsExactly("/sbin/lvremove", "-f", "vg0/snap_vm-100-disk-0_s1", "--select", "lv_uuid=" + uuid);
        for (String bad : List.of("", "x||lv_name=~.*", uuid + " ", uuid.replace('-', ','))) {
            LogicalVolume hostile = new LogicalVolume(
                    "vg0", "vm-100-disk-0", 4096, "-wi-------", "", 0, 0, 0, bad, List.of(), 0, null, false);
            assertThatThrownBy(() -> LvmCommands.lvremove(hostile))
                    .isInstanceOf(StorageException.class)
                    .hasMessageStartingWith("lvs reported LV 'vg0/vm-100-disk-0' without a UUID");
        }
    }

    @Test
    void resizeAndActivation() {
        assertThat(LvmCommands.lvextend(LV, 8192).argv())
                .containsExactly("/sbin/lvextend", "-L", "8192k", "/dev/vg0/vm-100-disk-0");
        assertThat(LvmCommands.lvextend(LV, 8192).errorPrefix())
                .isEqualTo("error resizing volume '/dev/vg0/vm-100-disk-0'");
        assertThat(LvmCommands.lvreduce(LV, 4096).argv())
                .containsExactly("/sbin/lvreduce", "-f", "-L", "4096k", "/dev/vg0/vm-100-disk-0");
        assertThat(LvmCommands.extentSize("vg0").argv())
                .containsExactly(
                        "/sbin/vgs",
                        "--separator",
                        ":",
                        "--noheadings",
                        "--units",
                        "b",
                        "--unbuffered",
                        "--nosuffix",
                        "--options",
                        "vg_extent_size",
                        "vg0");
        ActivationTarget lv = ActivationTarget.lv(LV);
        assertThat(LvmCommands.activate(lv).argv()).containsExactly("/sbin/lvchange", "-aey", "/dev/vg0/vm-100-disk-0");
        assertThat(LvmCommands.activate(lv).errorPrefix()).isEqualTo("can't activate LV '/dev/vg0/vm-100-disk-0'");
        assertThat(LvmCommands.refresh(lv).argv())
                .containsExactly("/sbin/lvchange", "--refresh", "/dev/vg0/vm-100-disk-0");
        assertThat(LvmCommands.refresh(lv).errorPrefix())
                .isEqualTo("can't refresh LV '/dev/vg0/vm-100-disk-0' for activation");
        assertThat(LvmCommands.deactivate(lv).argv())
                .containsExactly("/sbin/lvchange", "-aln", "/dev/vg0/vm-100-disk-0");
        assertThat(LvmCommands.deactivate(lv).errorPrefix()).isEqualTo("can't deactivate LV '/dev/vg0/vm-100-disk-0'");
        assertThat(LvmCommands.activateForZeroing(LV).argv())
                .containsExactly("/sbin/lvchange", "-aly", "/dev/vg0/vm-100-disk-0");
        assertThat(LvmCommands.activateForZeroing(LV).errorPrefix())
                .isEqualTo("can't activate LV '/dev/vg0/vm-100-disk-0' to zero-out its data");
        assertThat(LvmCommands.refreshForZeroing(LV).errorPrefix())
                .isEqualTo("can't refresh LV '/dev/vg0/vm-100-disk-0' to zero-out its data");
    }

    @Test
    void aQcow2VolumeIsActivatedWithItsChainSelectedByName() {
        Path path = Path.of("/dev/vg0/vm-100-disk-0.qcow2");
        ActivationTarget chain = ActivationTarget.volumeChain("vg0", "vm-100-disk-0.qcow2", path);
        assertThat(LvmCommands.activate(chain).argv())
                .containsExactly(
                        "/sbin/lvchange",
                        "-aey",
                        "--select",
                        "vg_name = \"vg0\" && lv_name =~ '^(vm-100-disk-0|snap_vm-100-disk-0_.+)\\.qcow2$'");
        assertThat(LvmCommands.activate(chain).errorPrefix())
                .isEqualTo("can't activate volume chain for LV '/dev/vg0/vm-100-disk-0.qcow2'");
        assertThat(ActivationTarget.volumeChain("vg0", "vm-1-a.b.qcow2", path)
                        .args()
                        .get(1))
                .isEqualTo("vg_name = \"vg0\" && lv_name =~ '^(vm-1-a\\.b|snap_vm-1-a\\.b_.+)\\.qcow2$'");
    }

    @Test
    void groupCommands() {
        assertThat(LvmCommands.vgscan().argv()).containsExactly("/sbin/vgscan", "--ignorelockingfailure", "--mknodes");
        assertThat(LvmCommands.deactivateGroup("vg0").argv()).containsExactly("/sbin/vgchange", "-aln", "vg0");
        assertThat(LvmCommands.deactivateGroup("vg0").errorPrefix()).isEqualTo("can't deactivate VG 'vg0'");
    }

    @Test
    void thinAllocationAsPveWithoutTagsAndAutoactivationApart() {
        Command c = LvmCommands.thinLvcreate("pve", "data", "vm-100-disk-0", 4194304, List.of());
        assertThat(c.argv())
                .containsExactly(
                        "/sbin/lvcreate",
                        "-aly",
                        "-V",
                        "4194304k",
                        "--name",
                        "vm-100-disk-0",
                        "--thinpool",
                        "pve/data");
        assertThat(c.errorPrefix()).isEqualTo("lvcreate 'pve/vm-100-disk-0' error");
        assertThat(LvmCommands.disableAutoactivation("pve", "vm-100-disk-0").argv())
                .containsExactly("/sbin/lvchange", "--setautoactivation", "n", "pve/vm-100-disk-0");
    }

    @Test
    void anImportTagsItsLvAndDropsTheTagWhenWritten() {
        assertThat(LvmCommands.thinLvcreate("pve", "data", "vm-100-disk-0", 4096, List.of("vsm-importing.x"))
                        .argv())
                .containsExactly(
                        "/sbin/lvcreate",
                        "-aly",
                        "-V",
                        "4096k",
                        "--name",
                        "vm-100-disk-0",
                        "--thinpool",
                        "pve/data",
                        "--addtag",
                        "vsm-importing.x");
        Command c = LvmCommands.deltag("pve", "vm-100-disk-0", "vsm-importing.x");
        assertThat(c.argv()).containsExactly("/sbin/lvchange", "--deltag", "vsm-importing.x", "pve/vm-100-disk-0");
        assertThat(c.errorPrefix()).isEqualTo("lvchange 'pve/vm-100-disk-0' error");
    }

    @Test
    void thinActivationIgnoresTheSkipFlag() {
        Command on = LvmCommands.activateThin("pve", "data");
        assertThat(on.argv()).containsExactly("/sbin/lvchange", "-ay", "-K", "pve/data");
        assertThat(on.errorPrefix()).isEqualTo("activating LV 'pve/data' failed");
        Command off = LvmCommands.deactivateThin("pve", "base-100-disk-0");
        assertThat(off.argv()).containsExactly("/sbin/lvchange", "-an", "pve/base-100-disk-0");
        assertThat(off.errorPrefix()).isEqualTo("deactivate_volume 'pve/base-100-disk-0' error");
    }

    @Test
    void thinSnapshotsRollbackAndDeletion() {
        Command snap = LvmCommands.thinSnapshot("pve", "vm-100-disk-0", "snap_vm-100-disk-0_s1");
        assertThat(snap.argv())
                .containsExactly("/sbin/lvcreate", "-n", "snap_vm-100-disk-0_s1", "-pr", "-s", "pve/vm-100-disk-0");
        assertThat(snap.errorPrefix()).isEqualTo("lvcreate snapshot 'pve/snap_vm-100-disk-0_s1' error");
        Command rollback = LvmCommands.thinRollback("pve", "vm-100-disk-0", "snap_vm-100-disk-0_s1");
        assertThat(rollback.argv())
                .containsExactly("/sbin/lvcreate", "-kn", "-n", "vm-100-disk-0", "-s", "pve/snap_vm-100-disk-0_s1");
        assertThat(rollback.errorPrefix()).isEqualTo("lvm rollback 'pve/snap_vm-100-disk-0_s1' error");
        Command delete = LvmCommands.lvremoveSnapshot("pve", "snap_vm-100-disk-0_s1");
        assertThat(delete.argv()).containsExactly("/sbin/lvremove", "-f", "pve/snap_vm-100-disk-0_s1");
        assertThat(delete.errorPrefix()).isEqualTo("lvremove snapshot 'pve/snap_vm-100-disk-0_s1' error");
    }

    @Test
    void thinTemplatesAndLinkedClones() {
        Command rename = LvmCommands.renameToBase("pve", "vm-100-disk-0", "base-100-disk-0");
        assertThat(rename.argv()).containsExactly("/sbin/lvrename", "pve", "vm-100-disk-0", "base-100-disk-0");
        assertThat(rename.errorPrefix()).isEqualTo("lvrename 'pve/vm-100-disk-0' => 'pve/base-100-disk-0' error");
        assertThat(LvmCommands.protectBase("pve", "base-100-disk-0").argv())
                .containsExactly("/sbin/lvchange", "-pr", "-ky", "pve/base-100-disk-0");
        Command clone = LvmCommands.thinClone("pve", "base-100-disk-0", "vm-101-disk-0");
        assertThat(clone.argv())
                .containsExactly("/sbin/lvcreate", "-n", "vm-101-disk-0", "-prw", "-kn", "-s", "pve/base-100-disk-0");
        assertThat(clone.errorPrefix()).isEqualTo("clone image 'pve/base-100-disk-0' error");
    }
}
