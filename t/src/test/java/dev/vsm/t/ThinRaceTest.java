package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.ThinSandbox;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import dev.vsm.testing.ThinMetadata;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * 16 vsm processes changing one thin pool's volumes at once.
 * Thin volumes cannot be created on these machines (lvm2 needs device-mapper for that, and for
 * {@code alloc}, {@code clone} and snapshots), so they are written into the group's metadata
 * ({@link ThinMetadata}); {@code lvrename}, {@code lvchange --addtag/--deltag} and {@code lvremove}
 * of a thin LV then change only that metadata (activation is off) and run for real. The storage
 * lock must keep the parallel renames from picking one name twice, and no change may lose another
 * volume or leave the metadata inconsistent ({@code vgck}).
 */
@RootTest
class ThinRaceTest {
    private static final Pattern RENAMED =
            Pattern.compile("renamed 'thin:(vm-\\d+-disk-\\d+)' to 'thin:(vm-\\d+-disk-\\d+)'\n");

    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(128);

    @TempDir
    Path sandbox;

    /**
     * 16 thin volumes {@code vm-100-disk-0..15} of 4 MiB in pool {@code data}; bystanders beside
     * them: a plain LV, a volume in another pool, another guest's volume in the same pool.
     */
    private Vsm layout() {
        vg.createLv("plain", 4);
        ThinMetadata thin = ThinMetadata.of(vg)
                .pool("data", 32)
                .pool("other", 8)
                .volume("other", "vm-100-disk-99", 4)
                .volume("data", "vm-400-disk-0", 4);
        for (int i = 0; i < ConcurrencyTest.PROCESSES; i++) {
            thin.volume("data", "vm-100-disk-" + i, 4);
        }
        thin.write();
        return ThinSandbox.vsm(sandbox, vg).processes().env("VSM_LOCK_TIMEOUT", ConcurrencyTest.LOCK_WAIT_SECONDS);
    }

    @Test
    void sixteenParallelRenamesGetSixteenDistinctNames() throws Exception {
        Vsm vsm = layout();
        List<Callable<Vsm.Result>> runs = new ArrayList<>();
        for (int i = 0; i < ConcurrencyTest.PROCESSES; i++) {
            String volume = "thin:vm-100-disk-" + i;
            runs.add(() -> vsm.run("rename", volume, "200"));
        }
        Set<String> targets = renamed(ConcurrencyTest.together(runs));

        assertThat(targets).hasSize(ConcurrencyTest.PROCESSES);
        List<String> lvs = vg.lvNames();
        assertThat(lvs.stream().filter(lv -> lv.startsWith("vm-200-"))).containsExactlyInAnyOrderElementsOf(targets);
        assertThat(lvs)
                .noneMatch(lv -> lv.matches("vm-100-disk-\\d"))
                .contains("vm-100-disk-99", "vm-400-disk-0", "plain", "data", "other");
        for (String lv : targets) {
            assertThat(vg.lvm("lvs", "--noheadings", "-o", "pool_lv,lv_size", "--units", "b", vg.name() + "/" + lv)
                            .strip())
                    .matches("data\\s+4194304B");
            assertThat(vg.tags(lv)).as(lv).contains("pve-vm-200").doesNotContain("pve-vm-100");
        }
        vg.lvm("vgck", vg.name());
    }

    /**
     * Half the processes make base volumes ({@code lvrename} to {@code base-}, then read-only and
     * activation-skip), half rename. (Freeing cannot run here: {@code lvremove} of a thin LV
     * must send the pool a delete message, and without device-mapper lvm2 drops the LV from the
     * metadata but fails with {@code Cannot activate thin pool}, exit 5.)
     */
    @Test
    void sixteenParallelCreateBasesAndRenamesLoseNothingElse() throws Exception {
        Vsm vsm = layout();
        List<Callable<Vsm.Result>> all = new ArrayList<>();
        for (int i = 0; i < ConcurrencyTest.PROCESSES; i++) {
            String volume = "thin:vm-100-disk-" + i;
            all.add(i % 2 == 0 ? () -> vsm.run("create-base", volume) : () -> vsm.run("rename", volume, "300"));
        }
        List<Vsm.Result> results = ConcurrencyTest.together(all);
        List<Vsm.Result> renameResults = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            Vsm.Result r = results.get(i);
            if (i % 2 == 0) {
                assertThat(r.exit()).as("create-base: %s", r.err()).isZero();
                assertThat(r.out()).isEqualTo("successfully created base volume 'thin:base-100-disk-" + i + "'\n");
            } else {
                renameResults.add(r);
            }
        }
        Set<String> targets = renamed(renameResults);

        assertThat(targets).hasSize(ConcurrencyTest.PROCESSES / 2);
        List<String> lvs = vg.lvNames();
        assertThat(lvs.stream().filter(lv -> lv.startsWith("vm-300-"))).containsExactlyInAnyOrderElementsOf(targets);
        for (int i = 0; i < ConcurrencyTest.PROCESSES; i += 2) {
            assertThat(vg.lvm("lvs", "--noheadings", "-o", "lv_attr", vg.name() + "/base-100-disk-" + i)
                            .strip())
                    .matches("Vri-..tz-k");
        }
        assertThat(lvs)
                .noneMatch(lv -> lv.matches("vm-100-disk-\\d+") && !lv.equals("vm-100-disk-99"))
                .contains("vm-100-disk-99", "vm-400-disk-0", "plain", "data", "other");
        assertThat(vsm.run("list", "thin").ok().lines()).hasSize(1 + 1 + ConcurrencyTest.PROCESSES);
        vg.lvm("vgck", vg.name());
    }

    /** Every run renamed (or timed out on the lock, which none should at 120 s); the new names, each once. */
    private static Set<String> renamed(List<Vsm.Result> results) {
        Set<String> targets = new HashSet<>();
        for (Vsm.Result r : results) {
            assertThat(r.exit()).as("rename: %s", r.err()).isZero();
            Matcher m = RENAMED.matcher(r.out());
            assertThat(m.matches()).as("rename said: %s", r.out()).isTrue();
            assertThat(targets.add(m.group(2))).as("%s given twice", m.group(2)).isTrue();
        }
        return targets;
    }
}
