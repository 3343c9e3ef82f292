package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.testing.LoopVolumeGroup;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Two vsm processes allocating on one VG at once: the storage lock gives them distinct names. */
class LvmRaceTest {
    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(64);

    @TempDir
    Path sandbox;

    @Test
    void twoAllocsRacingBothSucceedWithDistinctNames() {
        Vsm vsm = LvmSandbox.vsm(sandbox, vg);
        for (int round = 0; round < 3; round++) {
            var first = CompletableFuture.supplyAsync(() -> vsm.run("alloc", "san", "100", "", "4M"));
            var second = CompletableFuture.supplyAsync(() -> vsm.run("alloc", "san", "100", "", "4M"));
            List<String> created = List.of(first.join().ok().out(), second.join().ok().out());
            int a = 2 * round;
            assertThat(created).as("round %d", round).containsExactlyInAnyOrder(
                    "successfully created 'san:vm-100-disk-" + a + "'\n", "successfully created 'san:vm-100-disk-" + (a + 1) + "'\n");
        }
        assertThat(vg.lvNames()).containsExactly("vm-100-disk-0", "vm-100-disk-1", "vm-100-disk-2", "vm-100-disk-3",
                "vm-100-disk-4", "vm-100-disk-5");
    }
}
