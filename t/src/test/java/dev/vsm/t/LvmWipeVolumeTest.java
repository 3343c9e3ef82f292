package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.LvmSandbox;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopDevice;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vsm wipe <volid>}: a volume zeroed in place through the real cli/vsm. Without
 * device-mapper an LV never gets a device node; a symlink {@code /dev/<vg>/<lv>} to a scratch
 * loop device stands in for it where the data must really be zeroed.
 */
@RootTest
class LvmWipeVolumeTest {
    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);

    @TempDir
    Path sandbox;

    private Path node;

    @AfterEach
    void removeStandInNode() throws IOException {
        if (node != null) {
            Files.deleteIfExists(node);
            Files.deleteIfExists(node.getParent());
        }
    }

    @Test
    void zeroesTheVolumeInPlaceWithTheStoragesStep() throws IOException {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg, "saferemove-stepsize: 1");
        vsm.run("alloc", "san", "100", "", "4M").ok();
        try (LoopDevice disk = LoopDevice.create(8L << 20)) {
            disk.fillRandom(3);
            node = Path.of("/dev", vg.name(), "vm-100-disk-0");
            Files.createDirectories(node.getParent());
            Files.createSymbolicLink(node, disk.path());

            Vsm.Result dry = vsm.run("wipe", "san:vm-100-disk-0", "--dry-run").ok();
            assertThat(dry.lines())
                    .contains("+ /sbin/lvchange -aey " + node, "+ blkdiscard " + node + " -v --zeroout --step 1048576");
            assertThat(disk.nonZeroBytes()).as("dry run").isPositive();

            vsm.run("wipe", "san:vm-100-disk-0").badInput("refusing to zero 'san:vm-100-disk-0' without --yes");
            assertThat(disk.nonZeroBytes()).isPositive();

            vsm.run("wipe", "san:vm-100-disk-0", "--yes").ok();
            assertThat(disk.nonZeroBytes()).isZero();
        }
        assertThat(vg.lvNames()).as("the volume stays").containsExactly("vm-100-disk-0");
    }

    @Test
    void refusesWhatItCannotZero() {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        vsm.run("alloc", "san", "100", "", "4M").ok();
        Vsm.Result noNode = vsm.run("wipe", "san:vm-100-disk-0", "--yes");
        assertThat(noNode.exit()).isEqualTo(1);
        assertThat(noNode.err()).contains("is not a block device after activation", "not zeroing it");
        vsm.run("wipe", "san:vm-100-disk-9", "--yes").badInput("no such volume 'vm-100-disk-9'");
        vsm.run("wipe", "--yes").badInput("give either a VOLUME or --device PATH");
        vsm.run("add", "dir", "files", "--path", sandbox.resolve("files").toString())
                .ok();
        vsm.run("alloc", "files", "100", "", "1M").ok();
        vsm.run("wipe", "files:100/vm-100-disk-0.raw", "--yes")
                .badInput("storage 'files' (type dir) cannot zero volumes in place");
    }
}
