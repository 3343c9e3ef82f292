package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.LvmSandbox;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a new user trips over on LVM, through the real cli/vsm on a loop-device volume group:
 * another guest's name and a storage without images refused at alloc (lvmthin's own refusal is in
 * {@code ThinBadInputTest}), and lvm2's reason reported when it fails.
 */
@RootTest
class NewUserLvmTest {
    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(32);

    @TempDir
    Path sandbox;

    private void refused(Vsm vsm, String message, String... args) {
        Map<String, String> files = Tree.snapshot(sandbox);
        var lvs = vg.lvNames();
        vsm.run(args).badInput(message);
        assertThat(Tree.snapshot(sandbox))
                .as("vsm %s changed files", String.join(" ", args))
                .isEqualTo(files);
        assertThat(vg.lvNames())
                .as("vsm %s changed the volume group", String.join(" ", args))
                .isEqualTo(lvs);
    }

    @Test
    void allocRefusesAnotherGuestsNameAndAStorageWithoutImages() {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        refused(
                vsm,
                "illegal name 'vm-101-disk-0' - should be 'vm-100-*'",
                "alloc",
                "san",
                "100",
                "vm-101-disk-0",
                "4M");
        vsm.run("alloc", "san", "100", "vm-100-disk-3", "4M").ok();
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-3");

        vsm = LvmSandbox.vsm(sandbox, vg, "content: [rootdir]");
        refused(vsm, "storage 'san' does not support content-type 'images'", "alloc", "san", "100", "", "4M");
    }

    /**
     * On a kernel without device-mapper, lvm2 with activation on fails each lvcreate with its
     * reason and then a pointer to its help; the reason is what vsm reports. (With device-mapper
     * the same alloc succeeds.) The group's own lvm.conf never activates, so vsm gets a copy that does.
     */
    @Test
    void aFailingLvm2CommandReportsLvm2sReason() throws IOException {
        Path activating = Files.createDirectories(sandbox.resolve("lvm-activating"));
        String conf = Files.readString(vg.systemDir().resolve("lvm.conf"));
        assertThat(conf).contains("activation = 0");
        Files.writeString(activating.resolve("lvm.conf"), conf.replace("activation = 0", "activation = 1"));
        Vsm vsm = LvmSandbox.vsm(sandbox, vg).env("LVM_SYSTEM_DIR", activating.toString());
        Vsm.Result r = vsm.run("alloc", "san", "100", "", "4M");
        if (Files.exists(Path.of("/sys/module/dm_mod"))) {
            r.ok();
            return;
        }
        assertThat(r.exit()).as("stderr: %s", r.err()).isEqualTo(1);
        assertThat(r.err())
                .contains("Required device-mapper target(s) not detected")
                .doesNotContain("--help")
                .hasLineCount(1);
    }
}
