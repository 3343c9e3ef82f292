package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.LvmSandbox;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** vsm processes allocating on one VG at once: the storage lock gives them distinct names. */
@RootTest
class LvmRaceTest {
    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(128);

    @TempDir
    Path sandbox;

    /** Issue 7, item 1: 16 at once, each a success (or the lock's timeout), 16 distinct whole LVs and nothing else. */
    @Test
    void sixteenParallelAllocsMakeSixteenDistinctVolumes() throws Exception {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg).processes().env("VSM_LOCK_TIMEOUT", ConcurrencyTest.LOCK_WAIT_SECONDS);
        List<java.util.concurrent.Callable<Vsm.Result>> runs = new java.util.ArrayList<>();
        for (int i = 0; i < ConcurrencyTest.PROCESSES; i++) {
            runs.add(() -> vsm.run("alloc", "san", "100", "", "1M"));
        }
        java.util.Set<String> created = ConcurrencyTest.createdOrTimedOut(ConcurrencyTest.together(runs));
        assertThat(created).hasSize(ConcurrencyTest.PROCESSES);
        List<String> lvs = vg.lvNames();
        assertThat(lvs).hasSize(ConcurrencyTest.PROCESSES).allSatisfy(lv -> {
            assertThat(lv).matches("vm-100-disk-\\d+");
            assertThat(vg.lvSize(lv)).contains(4L << 20); // 1M rounded up to one 4 MiB extent
            assertThat(vg.tags(lv)).containsExactly("pve-vm-100");
        });
        assertThat(created)
                .containsExactlyInAnyOrderElementsOf(lvs.stream()
                        .map(lv -> "successfully created 'san:" + lv + "'")
                        .toList());
    }

    @Test
    void twoAllocsRacingBothSucceedWithDistinctNames() {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg).processes();
        for (int round = 0; round < 3; round++) {
            var first = CompletableFuture.supplyAsync(() -> vsm.run("alloc", "san", "100", "", "4M"));
            var second = CompletableFuture.supplyAsync(() -> vsm.run("alloc", "san", "100", "", "4M"));
            List<String> created =
                    List.of(first.join().ok().out(), second.join().ok().out());
            int a = 2 * round;
            assertThat(created)
                    .as("round %d", round)
                    .containsExactlyInAnyOrder(
                            "successfully created 'san:vm-100-disk-" + a + "'\n",
                            "successfully created 'san:vm-100-disk-" + (a + 1) + "'\n");
        }
        assertThat(vg.lvNames())
                .containsExactly(
                        "vm-100-disk-0",
                        "vm-100-disk-1",
                        "vm-100-disk-2",
                        "vm-100-disk-3",
                        "vm-100-disk-4",
                        "vm-100-disk-5");
    }
}
