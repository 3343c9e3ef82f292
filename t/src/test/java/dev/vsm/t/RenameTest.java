package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.LvmSandbox;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code vsm rename}: a volume to another owner or name, on dir (files) and lvm (a real VG). */
class RenameTest {
    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);

    @TempDir
    Path sandbox;

    private Vsm vsm;

    @AfterEach
    void release() {
        if (vsm != null) {
            vsm.releaseImmutable();
        }
    }

    @Test
    void dirMovesTheFileAndLinkedClonesKeepTheirBase() {
        vsm = new Vsm(sandbox);
        Path images = vsm.defaultLocal().resolve("images");
        vsm.run("alloc", "local", "100", "", "1M").ok();
        assertThat(vsm.run("rename", "local:100/vm-100-disk-0.raw", "101").ok().out())
                .isEqualTo("renamed 'local:100/vm-100-disk-0.raw' to 'local:101/vm-101-disk-0.raw'\n");
        assertThat(Files.exists(images.resolve("101/vm-101-disk-0.raw"))).isTrue();
        assertThat(Files.exists(images.resolve("100")))
                .as("the emptied owner directory goes")
                .isFalse();

        vsm.run("alloc", "local", "100", "", "1M", "--format", "qcow2").ok();
        vsm.run("create-base", "local:100/vm-100-disk-0.qcow2").ok();
        vsm.run("clone", "local:100/base-100-disk-0.qcow2", "102").ok();
        Map<String, String> before = Tree.snapshot(sandbox);
        vsm.run("rename", "local:100/base-100-disk-0.qcow2", "103")
                .badInput("base volume '100/base-100-disk-0.qcow2' is still in use by linked clones");
        vsm.run("rename", "local:101/vm-101-disk-0.raw", "101", "--name", "vm-101-disk-0.qcow2")
                .badInput("wrong extension for format");
        vsm.run("rename", "local:101/vm-101-disk-0.raw", "101", "--name", "vm-101-disk-0.raw")
                .badInput("target volume 'vm-101-disk-0.raw' already exists");
        vsm.run("rename", "local:100/vm-100-disk-7.raw", "101").badInput("no such volume '100/vm-100-disk-7.raw'");
        vsm.run("rename", "local:101/vm-101-disk-0.raw", "102", "--dry-run").ok();
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);

        assertThat(vsm.run("rename", "local:100/base-100-disk-0.qcow2/102/vm-102-disk-0.qcow2", "104")
                        .ok()
                        .out())
                .contains("to 'local:100/base-100-disk-0.qcow2/104/vm-104-disk-0.qcow2'");
        assertThat(QemuImg.info(images.resolve("104/vm-104-disk-0.qcow2"))
                        .get("backing-filename")
                        .asText())
                .isEqualTo("../100/base-100-disk-0.qcow2");
        assertThat(vsm.run("info", "local:100/base-100-disk-0.qcow2/104/vm-104-disk-0.qcow2")
                        .ok()
                        .out())
                .contains("size: 1048576");
    }

    @RootTest
    @Test
    void lvmRenamesTheLvAndMovesTheOwnerTag() {
        vsm = LvmSandbox.vsm(sandbox, vg);
        vsm.run("alloc", "san", "100", "", "4M").ok();
        Vsm.Result dry =
                vsm.run("rename", "san:vm-100-disk-0", "101", "--dry-run").ok();
        assertThat(dry.lines())
                .containsExactly(
                        "+ /sbin/lvrename " + vg.name() + " vm-100-disk-0 vm-101-disk-0",
                        "+ /sbin/lvchange --addtag pve-vm-101 --deltag pve-vm-100 " + vg.name() + "/vm-101-disk-0",
                        "would rename 'san:vm-100-disk-0' to 'san:vm-101-disk-0'");
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0");

        vsm.run("rename", "san:vm-100-disk-0", "101").ok();
        assertThat(vg.lvNames()).containsExactly("vm-101-disk-0");
        assertThat(vg.tags("vm-101-disk-0")).containsExactly("pve-vm-101");

        vsm.run("alloc", "san", "101", "", "4M").ok();
        vsm.run("rename", "san:vm-101-disk-1", "101", "--name", "vm-101-disk-0")
                .badInput("target volume 'vm-101-disk-0' already exists");
        vsm.run("rename", "san:vm-101-disk-1", "101", "--name", "bad/name").badInput("bad/name");
        vsm.run("rename", "san:vm-105-disk-0", "101").badInput("no such volume 'vm-105-disk-0'");
        assertThat(vg.lvNames()).containsExactly("vm-101-disk-0", "vm-101-disk-1");
    }
}
