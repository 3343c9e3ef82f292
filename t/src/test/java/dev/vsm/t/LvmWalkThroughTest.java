package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.LvmSandbox;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The LVM plugin through the real cli/vsm on a real VG (loop device), checked with lvs and vgs. */
@RootTest
class LvmWalkThroughTest {
    private static final long MIB = 1024 * 1024;

    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);

    @TempDir
    Path sandbox;

    @Test
    void addAStorageWhoseVolumeGroupIsMissingAndSeeItInactive() {
        Vsm vsm = new Vsm(sandbox).env(vg.environment());
        vsm.run("add", "lvm", "gone", "--vgname", "nosuchvg").ok();
        vsm.run("add", "lvm", "san", "--vgname", vg.name(), "--saferemove", "1", "--saferemove-stepsize", "8")
                .ok();
        Vsm.Result status = vsm.run("status").ok();
        assertThat(status.lines()).anySatisfy(l -> assertThat(l).matches("gone +lvm +inactive +0 +0 +0 +0\\.00%"));
        assertThat(status.lines()).anySatisfy(l -> assertThat(l).matches("san +lvm +active +61440 +0 +61440 +0\\.00%"));
        JsonNode json = vsm.run("status", "--storage", "gone", "--output-format", "json")
                .ok()
                .json();
        assertThat(json.get(0).get("active").asInt()).isZero();
        assertThat(json.get(0).get("content").asText()).isEqualTo("images");
        assertThat(vsm.run("list", "gone").ok().lines()).hasSize(1);
    }

    @Test
    void allocListStatusResizePathFree() {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);

        Vsm.Result dry = vsm.run("alloc", "san", "100", "", "4M", "--dry-run").ok();
        assertThat(dry.out())
                .isEqualTo("+ /sbin/lvcreate -aly -Wy --yes --size 4096k --name vm-100-disk-0 --setautoactivation n "
                        + "--addtag pve-vm-100 " + vg.name() + "\nwould create 'san:vm-100-disk-0'\n");
        assertThat(vg.lvNames()).isEmpty();

        assertThat(vsm.run("alloc", "san", "100", "", "4M").ok().out())
                .isEqualTo("successfully created 'san:vm-100-disk-0'\n");
        assertThat(vsm.run("alloc", "san", "101", "", "8M").ok().out())
                .isEqualTo("successfully created 'san:vm-101-disk-0'\n");
        assertThat(vsm.run("alloc", "san", "100", "vm-100-cloudinit", "4096")
                        .ok()
                        .out())
                .isEqualTo("successfully created 'san:vm-100-cloudinit'\n");
        assertThat(vg.lvNames()).containsExactly("vm-100-cloudinit", "vm-100-disk-0", "vm-101-disk-0");
        assertThat(vg.tags("vm-100-disk-0")).containsExactly("pve-vm-100");
        assertThat(vg.tags("vm-101-disk-0")).containsExactly("pve-vm-101");
        assertThat(vg.lvSize("vm-101-disk-0")).contains(8 * MIB);

        Vsm.Result list = vsm.run("list", "san").ok();
        assertThat(list.lines())
                .containsExactly(
                        "Volid                Format  Type         Size VMID",
                        "san:vm-100-cloudinit raw     images    4194304 100",
                        "san:vm-100-disk-0    raw     images    4194304 100",
                        "san:vm-101-disk-0    raw     images    8388608 101");
        JsonNode json = vsm.run("list", "san", "--vmid", "101", "--output-format", "json")
                .ok()
                .json();
        assertThat(json).hasSize(1);
        assertThat(json.get(0).get("volid").asText()).isEqualTo("san:vm-101-disk-0");
        assertThat(json.get(0).get("size").asLong()).isEqualTo(8 * MIB);

        assertThat(vsm.run("status", "--storage", "san").ok().lines().get(1))
                .matches("san +lvm +active +61440 +16384 +45056 +26\\.67%");
        assertThat(vg.freeBytes()).isEqualTo(44 * MIB);

        vsm.run("resize", "san:vm-100-disk-0", "+4M").ok();
        assertThat(vg.lvSize("vm-100-disk-0")).contains(8 * MIB);
        assertThat(vsm.run("path", "san:vm-100-disk-0").ok().out()).isEqualTo("/dev/" + vg.name() + "/vm-100-disk-0\n");

        assertThat(vsm.run("free", "san:vm-100-disk-0").ok().out()).isEqualTo("Removed volume 'san:vm-100-disk-0'\n");
        assertThat(vg.lvNames()).containsExactly("vm-100-cloudinit", "vm-101-disk-0");
    }

    @Test
    void theNextNameSkipsNumbersHeldByDelVolumes() {
        vg.createLv("del-vm-100-disk-0", 4);
        vg.createLv("vm-100-disk-1", 4);
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        assertThat(vsm.run("alloc", "san", "100", "", "4M").ok().out())
                .isEqualTo("successfully created 'san:vm-100-disk-2'\n");
        assertThat(vsm.run("list", "san").ok().lines()).hasSize(3); // the del- volume is not listed
    }

    @Test
    void scanLvmPrintsEachVolumeGroup() {
        Vsm vsm = new Vsm(sandbox).env(vg.environment());
        assertThat(vsm.run("scan", "lvm").ok().out()).isEqualTo(vg.name() + "\n");
        assertThat(vsm.run("lvmscan").ok().out()).as("pvesm's alias").isEqualTo(vg.name() + "\n");
        JsonNode json = vsm.run("scan", "lvm", "--output-format", "json").ok().json();
        assertThat(json).hasSize(1);
        assertThat(json.get(0).get("vg").asText()).isEqualTo(vg.name());
        assertThat(json.get(0).get("size").asLong()).isEqualTo(60 * MIB);
        assertThat(json.get(0).get("free").asLong()).isEqualTo(60 * MIB);
    }

    @Test
    void notEnoughSpaceIsRefusedBeforeAnythingIsCreatedWithTheSizes() {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        vsm.run("alloc", "san", "100", "", "40M").ok();
        Vsm.Result r = vsm.run("alloc", "san", "100", "", "24M");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err())
                .isEqualTo("storage 'san': not enough free space in volume group '" + vg.name()
                        + "' (25165824 bytes requested, 20971520 bytes free)\n");
        assertThat(r.out()).isEmpty();
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");
        assertThat(vsm.run("alloc", "san", "100", "", "20M").ok().out()).contains("vm-100-disk-1");
    }
}
