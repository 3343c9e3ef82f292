package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.guest.DiskVolumeGroup;
import dev.vsm.t.guest.InGuest;
import dev.vsm.t.support.Crashes;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.GuestTest;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash rounds on a real thin pool ({@link InGuest}): the lvm2 command vsm runs is killed with
 * SIGKILL at a random moment of its run, as a crash would kill it, in thin {@code alloc},
 * {@code clone} (of a base) and {@code free} ({@link Crashes}, the killer of
 * {@link CrashSafetyTest}): in the guest's JVM, where vsm runs in-process, and once per
 * operation with a real vsm process killed with it. After each kill every LV of the group is
 * the pool, the base, or a whole thin volume of the right size that activates, and lvm2's idea of
 * the pool (its transaction id, its thin volumes) is the kernel's, or one transaction ahead with
 * the message for the kernel kept in lvm2's metadata (a kill between lvm2's commit and its message:
 * {@link DiskVolumeGroup#checkThinPoolAfterAKill}); after the rounds {@code vsm cleanup} leaves
 * {@code vsm list} agreeing with {@code lvs}, the pool passes {@code thin_check} when activated
 * again, the pool takes a new volume, lvm2's transaction id is then the kernel's, and every volume
 * activates.
 *
 * <p>lvm2 sends a message it kept with its next change of the pool's thin volumes (an
 * {@code lvcreate} or {@code lvremove} in the pool), not when it activates the pool: so a kept
 * message may outlive the reactivation, and the next {@code vsm alloc} must send it.
 *
 * <p>A vsm process is a JVM start in the guest (seconds under TCG), so most rounds run vsm
 * in-process: {@code -Dvsm.thin-crash.rounds} of them per operation (default
 * {@value #DEFAULT_ROUNDS}), then one with a process; the kill moments
 * come from {@code -Dvsm.crash.seed} (default: the clock), printed with the figures.
 */
@GuestTest
class ThinCrashTest {
    static final int DEFAULT_ROUNDS = 4;
    static final int ROUNDS = Integer.getInteger("vsm.thin-crash.rounds", DEFAULT_ROUNDS);
    static final long SEED = Long.getLong("vsm.crash.seed", System.nanoTime());
    private static final long MIB = 1024 * 1024;

    @RegisterExtension
    static final InGuest GUEST = InGuest.withDisksMiB(512);

    @TempDir
    Path sandbox;

    private DiskVolumeGroup vg;
    private final Random random = new Random(SEED);
    /** Volumes (of the group now) already checked to activate. */
    private final Set<String> activated = new HashSet<>();

    private int pendingMessages;

    @AfterEach
    void tearDown() {
        if (vg != null) {
            vg.close();
        }
    }

    @Test
    void killedThinAllocCloneAndFreeLeaveWholeVolumesOrNone() throws Exception {
        vg = DiskVolumeGroup.create("/dev/vda");
        vg.lvm("lvcreate", "-q", "--yes", "--type", "thin-pool", "-L", "256m", "-n", "data", vg.name());
        Vsm vsm = new Vsm(sandbox).writeConfig("""
                storages:
                  thin:
                    type: lvmthin
                    vgname: %s
                    thinpool: data
                """.formatted(vg.name())).env("VSM_LOCK_TIMEOUT", "600");
        vsm.run("alloc", "thin", "101", "", "4M").ok();
        vsm.run("create-base", "thin:vm-101-disk-0").ok();

        String[] alloc = {"alloc", "thin", "100", "", "4M"};
        String[] clone = {"clone", "thin:base-101-disk-0", "102"};
        Crashes crashes = new Crashes(random, 1, 300);
        long[] window = {Crashes.timeInProcess(vsm, alloc), Crashes.timeInProcess(vsm, clone), 0};
        window[2] = Crashes.timeInProcess(vsm, "free", "thin:vm-100-disk-0");
        int[] killed = new int[3];
        String[] names = {"alloc", "clone", "free"};
        // ROUNDS in-process rounds of each operation, then one with a real vsm process killed
        for (int round = 0; round <= ROUNDS; round++) {
            boolean process = round == ROUNDS;
            for (int op = 0; op < 3; op++) {
                String[] args;
                String target = null;
                if (op < 2) {
                    args = op == 0 ? alloc : clone;
                } else {
                    List<String> volumes = vg.lvNames().stream()
                            .filter(lv -> lv.startsWith("vm-"))
                            .toList();
                    if (volumes.isEmpty()) {
                        vsm.run(alloc).ok();
                        volumes = vg.lvNames().stream()
                                .filter(lv -> lv.startsWith("vm-"))
                                .toList();
                    }
                    target = volumes.get(random.nextInt(volumes.size()));
                    // --verbose: a failed lvremove's every line (seen once: "Cannot deactivate logical volume")
                    args = new String[] {"--verbose", "free", "thin:" + target};
                }
                Crashes.Kill kill;
                try {
                    kill = process
                            ? crashes.killWhileItsCommandsRun(vsm, window[op], args)
                            : crashes.killItsCommandsInProcess(vsm, window[op], args);
                } catch (AssertionError e) {
                    // a command that finished on its own failed (seen once: lvremove's "Cannot deactivate
                    // logical volume" in a free): say what held the devices open
                    throw new AssertionError(
                            String.join(" ", args) + " round " + round + ", seed " + SEED + ": " + e.getMessage() + "\n"
                                    + DiskVolumeGroup.openDevices(),
                            e);
                }
                killed[op] += kill.finishedFirst() ? 0 : 1;
                String where = String.join(" ", args) + " round " + round + (process ? " (a vsm process)" : "")
                        + ", seed " + SEED + (kill.finishedFirst() ? " (finished)" : " (killed)");
                List<String> lvs = check(where);
                if (target != null && kill.finishedFirst()) {
                    assertThat(lvs).as(where).doesNotContain(target);
                }
            }
        }
        for (int op = 0; op < 3; op++) {
            System.out.printf(
                    "ThinCrashTest %s: %d rounds (%d in-process, 1 a vsm process), seed %d: %d killed while running%n",
                    names[op], ROUNDS + 1, ROUNDS, SEED, killed[op]);
        }

        Vsm.Result cleanup = vsm.run("cleanup", "thin").ok();
        Set<String> listed = new TreeSet<>();
        for (JsonNode v :
                vsm.run("list", "thin", "--output-format", "json").ok().json()) {
            listed.add(v.get("volid").asText().substring("thin:".length()));
        }
        Set<String> volumes = new TreeSet<>(vg.lvNames());
        volumes.remove("data");
        assertThat(listed)
                .as("vsm list after cleanup (%s), seed %d", cleanup.out().strip(), SEED)
                .isEqualTo(volumes);
        vg.checkThinPoolAfterReactivation("data");
        boolean kept = vg.checkThinPoolAfterAKill("data", "after cleanup and reactivation, seed " + SEED);
        vsm.run(alloc).ok();
        vg.checkThinPool(
                "data",
                "after the next alloc (" + (kept ? "a message kept through the reactivation, " : "") + pendingMessages
                        + " kills left lvm2 a message for the kernel), seed " + SEED);
        for (String lv : vg.lvNames()) {
            if (lv.startsWith("vm-") && activated.add(lv)) {
                vg.lvm("lvchange", "-ay", "-K", vg.name() + "/" + lv);
            }
        }
        System.out.printf("ThinCrashTest: %d whole volumes after the kills, seed %d%n", volumes.size(), SEED);
    }

    /**
     * What a kill may leave: the pool, the base, whole thin volumes of 4 MiB (clones with the
     * base as origin) that activate; lvm2's pool the kernel's. Returns the LVs.
     */
    private List<String> check(String where) {
        boolean pending = vg.checkThinPoolAfterAKill("data", where);
        if (pending) {
            pendingMessages++;
            System.out.printf("ThinCrashTest %s: lvm2 keeps the pool's message for the kernel%n", where);
        }
        Map<String, List<String>> rows = vg.rows("lv_size", "pool_lv", "origin");
        List<String> lvs = List.copyOf(rows.keySet());
        activated.retainAll(lvs); // a freed name that an alloc takes again is a new volume, to activate again
        for (String lv : lvs) {
            assertThat(lv).as("%s: LVs %s", where, lvs).matches("data|base-101-disk-0|vm-10[02]-disk-\\d+");
            if (!lv.startsWith("vm-")) {
                continue;
            }
            List<String> row = rows.get(lv);
            assertThat(row.get(0)).as("%s: the size of %s", where, lv).isEqualTo(String.valueOf(4 * MIB));
            assertThat(row.get(1)).as("%s: the pool of %s", where, lv).isEqualTo("data");
            if (lv.startsWith("vm-102-")) {
                assertThat(row.get(2))
                        .as("%s: the origin of the clone %s", where, lv)
                        .isEqualTo("base-101-disk-0");
            }
            // with a create message still in lvm2's metadata the kernel lacks the new volume until
            // lvm2 sends it: the volume is activated after the rounds and the next alloc
            if (!pending && activated.add(lv)) {
                vg.lvm("lvchange", "-ay", "-K", vg.name() + "/" + lv);
            }
        }
        return lvs;
    }
}
