package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.ThinSandbox;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import dev.vsm.testing.ThinMetadata;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thin rollback removes the volume before it makes it again from the snapshot, and a snapshot's
 * deletion removes the snapshot's LV: each removes the LV it listed (by UUID), never another LV
 * made under that name meanwhile (by another node after this vsm's cluster lock expired, or by
 * any other process). vsm stops itself just before {@code lvremove} (the test pause point,
 * {@code dev.vsm.env.TestPause}), the test moves the LV aside and writes a new thin LV under its
 * name, and vsm goes on: it fails with one line, and both LVs are there. Before, both commands
 * removed by name, and with it the new LV.
 */
@RootTest
class ThinFencingTest {
    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(128);

    @TempDir
    Path sandbox;

    private Vsm vsm;

    @BeforeEach
    void setUp() {
        ThinSandbox.writeLayout(vg);
        vsm = ThinSandbox.vsm(sandbox, vg).env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=lvremove");
    }

    @Test
    void aRollbackRemovesOnlyTheVolumeItListed() throws Exception {
        String seen = vg.uuid("vm-100-disk-0");
        Vsm.Started rollback = vsm.start("rollback", "thin:vm-100-disk-0", "s1");
        String made = swapAtThePause(rollback, "vm-100-disk-0", pool -> pool.volume("data", "vm-100-disk-0", 8));

        assertFenced(resume(rollback), "vm-100-disk-0", seen);
        assertThat(vg.uuid("vm-100-disk-0")).as("the LV made under the name").isEqualTo(made);
        assertThat(vg.lvNames()).contains("moved-aside", "snap_vm-100-disk-0_s1");
    }

    @Test
    void aSnapshotDeletionRemovesOnlyTheSnapshotItListed() throws Exception {
        String seen = vg.uuid("snap_vm-100-disk-0_s1");
        Vsm.Started delete = vsm.start("snapshot-delete", "thin:vm-100-disk-0", "s1");
        String made = swapAtThePause(
                delete,
                "snap_vm-100-disk-0_s1",
                pool -> pool.snapshot("data", "snap_vm-100-disk-0_s1", "vm-100-disk-0", 16));

        assertFenced(resume(delete), "snap_vm-100-disk-0_s1", seen);
        assertThat(vg.uuid("snap_vm-100-disk-0_s1")).isEqualTo(made);
        assertThat(vg.lvNames()).contains("moved-aside", "vm-100-disk-0");
    }

    /** Once vsm stopped before lvremove: moves {@code lv} aside and writes a new one under its name; its UUID. */
    private String swapAtThePause(
            Vsm.Started started, String lv, java.util.function.UnaryOperator<ThinMetadata> newLv) {
        try {
            started.awaitPaused(60);
        } catch (AssertionError e) {
            started.process().destroyForcibly();
            throw e;
        }
        vg.lvm("lvrename", vg.name(), lv, "moved-aside");
        newLv.apply(ThinMetadata.of(vg)).write();
        return vg.uuid(lv);
    }

    private void assertFenced(Vsm.Result r, String lv, String seen) {
        assertThat(r.exit()).as("%s", r).isEqualTo(1);
        assertThat(r.err().strip())
                .doesNotContain("\n")
                .endsWith("lvremove '" + vg.name() + "/" + lv + "' error: the LV of that name is no longer the one "
                        + "found (UUID " + seen + "; freed and made again meanwhile by another node?): left it alone");
    }

    private static Vsm.Result resume(Vsm.Started s) throws Exception {
        try {
            new ProcessBuilder("kill", "-CONT", Long.toString(s.process().pid()))
                    .inheritIO()
                    .start()
                    .waitFor(30, TimeUnit.SECONDS);
            return s.finish(60);
        } finally {
            s.process().destroyForcibly();
        }
    }
}
