package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.env.TestPause;
import dev.vsm.t.guest.DiskVolumeGroup;
import dev.vsm.t.guest.InGuest;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.QemuIo;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.GuestTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash safety of volume chains on thick LVM (docs/volume-chains.md, "lvm"), on a real kernel
 * ({@link InGuest}): the intent record is an LV tag, and what a crash at any step of
 * {@code snapshot}, {@code rollback}, {@code snapshot-delete} (by commit, by rebase) and
 * {@code rename-snapshot} left is
 * finished or undone by {@code vsm cleanup} or the volume's next change. After each recovery every
 * layer reads back byte for byte, {@code qemu-img info --backing-chain} is whole and exactly the
 * snapshots' LVs under the volume's, every layer passes {@code qemu-img check}, and the VG holds
 * those LVs and nothing else, with no record left.
 *
 * <p>Real kills: a {@code cli/vsm} process of each operation, started together so that their JVM
 * starts (seconds each under TCG) overlap, stops itself at the operation's most dangerous step
 * ({@code vsm.test.pause-before}) and is killed there with SIGKILL. Every other step: an in-process
 * crash ({@link TestPause#crashBefore}: the step throws an {@link Error} that no handler of vsm's
 * catches, so the storage is left as a kill there leaves it).
 */
@GuestTest
class LvmChainCrashTest {
    private static final int MIB = 1024 * 1024;
    static final long SEED = Long.getLong("vsm.chain-crash.seed", System.nanoTime());
    static final int STEPS = Integer.getInteger("vsm.chain-crash.steps", 4);
    /** The operations whose steps are drawn, by the rounds' names (e.g. {@code rename,commit}); all when not set. */
    static final String ONLY = System.getProperty("vsm.chain-crash.only", "");

    @RegisterExtension
    static final InGuest GUEST = InGuest.withDisksMiB(128);

    @TempDir
    Path sandbox;

    private DiskVolumeGroup vg;
    private Vsm vsm;
    private final List<Chain> chains = new ArrayList<>();
    private final List<Vsm.Started> started = new ArrayList<>();

    @AfterEach
    void tearDown() {
        TestPause.disarm();
        for (Vsm.Started s : started) {
            if (s.process().isAlive()) {
                s.process().destroyForcibly(); // only the processes this test started, by their handles
            }
        }
        if (vg != null) {
            vg.close();
        }
    }

    private void storage() {
        QemuIo.run("blkdiscard", "-z", "/dev/vda");
        vg = DiskVolumeGroup.create("/dev/vda");
        vsm = new Vsm(sandbox).writeConfig("""
                        storages:
                          san:
                            type: lvm
                            vgname: %s
                            snapshot-as-volume-chain: 1
                        """.formatted(vg.name())).env("VSM_LOCK_TIMEOUT", "600");
    }

    /**
     * One process per operation, each stopped at its most dangerous step and killed there: a
     * snapshot after {@code current}'s rename (no {@code current}), a rollback after its removal, a
     * delete by commit after the commit (the snapshot holds its child's data), a delete by rebase
     * after the rebase, a snapshot's rename after its {@code lvrename} (the layer above names an LV
     * that is gone). An activation is refused while a record is there; then {@code vsm cleanup}
     * recovers all five.
     */
    @Test
    void processesKilledAtEachOperationsMostDangerousStepAreRecoveredByCleanup() {
        storage();
        Chain snapshot = chain(100);
        Chain rollback = chain(101);
        Chain commit = chain(102);
        Chain rebase = chain(103);
        Chain rename = chain(104);
        Map<Vsm.Started, String> rounds = new LinkedHashMap<>();
        rounds.put(start(snapshot, "lvcreate#1", "snapshot", snapshot.volid(), "s3"), "snapshot");
        rounds.put(start(rollback, "lvcreate#1", "rollback", rollback.volid(), "s2"), "rollback");
        rounds.put(start(commit, "lvremove#1", "snapshot-delete", commit.volid(), "s1"), "commit");
        rounds.put(start(rebase, "lvremove#1", "snapshot-delete", rebase.volid(), "s2"), "rebase");
        rounds.put(start(rename, "qemu-img#1", "rename-snapshot", rename.volid(), "s1", "r1"), "rename");
        killEachAtItsPause(rounds);

        assertThat(vg.lvNames())
                .as("the killed runs' state")
                .doesNotContain(snapshot.lv(), rollback.lv())
                .contains(snapshot.snapLv("s3"), rename.snapLv("r1"))
                .doesNotContain(rename.snapLv("s1")); // s2's layer names it still
        assertThat(records()).hasSize(5);
        Vsm.Result refused = vsm.run("activate", snapshot.volid());
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains("volume '" + snapshot.lv() + "' is in the middle of 'snapshot s3'");
        assertThat(vsm.run("activate", commit.volid()).err()).contains("is in the middle of 'delete-commit s1 s2'");

        Vsm.Result cleanup = vsm.run("cleanup", "san").ok();
        for (Chain c : List.of(snapshot, rollback, commit, rebase, rename)) {
            assertThat(cleanup.out()).contains(c.lv() + " (interrupted chain operation)");
        }
        rollback.current = rollback.snapshots.get("s2").clone();
        commit.snapshots.remove("s1");
        rebase.snapshots.remove("s2");
        rename.expectDone(new String[] {"rename-snapshot", rename.volid(), "s1", "r1"});
        verify();
        vsm.run("activate", snapshot.volid()).ok();
        // and a volume goes on: a write, a snapshot, a delete of the oldest
        commit.write(0x77, 640 * 1024, 4096);
        commit.snapshot("after");
        vsm.run("snapshot-delete", commit.volid(), "s2").ok();
        commit.snapshots.remove("s2");
        verify();
    }

    /**
     * Steps of each operation, crashed in-process ({@link TestPause#crashBefore}) on one volume
     * whose chain goes on from round to round (two or three snapshots: every round reads every
     * layer); half the rounds are recovered by {@code vsm cleanup}, half by the volume's next
     * change (a rollback to the newest snapshot). {@code finished}: the operation is done after the
     * recovery, else it is undone. {@code qemu-img check} of every layer at the end.
     *
     * <p>A round costs about 25 lvm2 and qemu processes, some 25 s under TCG: each run takes
     * {@link #STEPS} of the 25 steps, drawn with a new seed (in the order below), so that runs
     * cover every step over time within the full suite's time. {@code -Dvsm.chain-crash.steps=25}
     * takes them all (passed, 2026-12-06); {@code -Dvsm.chain-crash.seed} repeats a run's draw;
     * {@code -Dvsm.chain-crash.only=rename} (operations, comma-separated: {@code snapshot},
     * {@code rollback}, {@code commit}, {@code rebase}, {@code rename}) draws from their steps only.
     */
    @Test
    void aCrashAtEveryStepIsFinishedOrUndone() {
        storage();
        Chain chain = chain(100);
        record Round(String op, String step, boolean recorded, boolean finished) {}
        List<Round> rounds = List.of(
                // snapshot: lvchange#1-2 activate the chain, #3 writes the record on current
                new Round("snapshot", "lvchange#3", false, false),
                new Round("snapshot", "lvrename#1", true, false), // current -> snap_..._S
                new Round("snapshot", "lvcreate#1", true, false), // the overlay's LV, vsm-partial-<name>
                new Round("snapshot", "qemu-img#1", true, false), // ... formatted
                new Round("snapshot", "lvrename#2", true, false), // ... renamed current
                new Round("snapshot", "lvchange#6", true, true), // the record removed
                new Round("rollback", "lvchange#3", false, false),
                new Round("rollback", "lvremove#1", true, true), // current removed
                new Round("rollback", "lvcreate#1", true, true),
                new Round("rollback", "qemu-img#1", true, true),
                new Round("rollback", "lvrename#1", true, true),
                new Round("rollback", "lvchange#6", true, true),
                new Round("commit", "lvchange#3", false, false),
                new Round("commit", "qemu-img#1", true, true), // qemu-img commit of the child
                new Round("commit", "lvremove#1", true, true), // the child removed
                new Round("commit", "lvrename#1", true, true), // the snapshot takes its name
                new Round("commit", "lvchange#4", true, true),
                new Round("rebase", "lvchange#3", false, false),
                new Round("rebase", "qemu-img#1", true, false), // qemu-img rebase of the child
                new Round("rebase", "lvremove#1", true, true), // the snapshot removed
                new Round("rebase", "lvchange#4", true, true),
                // rename-snapshot of the oldest: the record on its LV, which it renames
                new Round("rename", "lvchange#3", false, false),
                new Round("rename", "lvrename#1", true, false), // snap_..._S -> snap_..._NEW
                new Round("rename", "qemu-img#1", true, true), // qemu-img rebase -u of the child onto NEW
                new Round("rename", "lvchange#4", true, true));
        List<Round> drawn = draw(rounds.stream()
                .filter(r -> ONLY.isEmpty() || List.of(ONLY.split(",")).contains(r.op()))
                .toList());
        int next = 0;
        for (int i = 0; i < drawn.size(); i++) {
            Round round = drawn.get(i);
            while (chain.snapshots.size() < 2) {
                chain.write(0x40 + next, (next * 37 % 200) * 4096, 8192);
                chain.snapshot("n" + next++);
            }
            List<String> names = new ArrayList<>(chain.snapshots.keySet());
            String[] args = switch (round.op()) {
                case "snapshot" -> new String[] {"snapshot", chain.volid(), "n" + next++};
                case "rollback" -> new String[] {"rollback", chain.volid(), names.get(names.size() - 1)};
                case "commit" -> new String[] {"snapshot-delete", chain.volid(), names.get(0)};
                case "rename" -> new String[] {"rename-snapshot", chain.volid(), names.get(0), "n" + next++};
                default -> new String[] {"snapshot-delete", chain.volid(), names.get(1)};
            };
            String where = String.join(" ", args) + ", crashed before " + round.step() + " (seed " + SEED + ")";
            crash(round.step(), args);
            assertThat(records()).as(where + ": the record").hasSize(round.recorded() ? 1 : 0);
            if (round.finished()) {
                chain.expectDone(args);
            }
            if (i % 2 == 0) {
                Vsm.Result cleanup = vsm.run("cleanup", "san").ok();
                if (round.recorded()) {
                    assertThat(cleanup.out()).as(where).contains(chain.lv() + " (interrupted chain operation)");
                }
            } else {
                List<String> now = new ArrayList<>(chain.snapshots.keySet());
                String newest = now.get(now.size() - 1);
                String err = vsm.run("rollback", chain.volid(), newest).ok().err();
                if (round.recorded()) {
                    assertThat(err).as(where).contains(chain.lv()).contains(round.finished() ? "finished" : "undone");
                }
                chain.current = chain.snapshots.get(newest).clone();
            }
            verify(false);
        }
        verify(true);
    }

    // --- helpers

    /** {@link #STEPS} of {@code all}, drawn with {@link #SEED}, in their order. */
    private static <T> List<T> draw(List<T> all) {
        List<Integer> indexes = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            indexes.add(i);
        }
        Collections.shuffle(indexes, new Random(SEED));
        List<Integer> taken = new ArrayList<>(indexes.subList(0, Math.min(STEPS, all.size())));
        Collections.sort(taken);
        List<T> drawn = new ArrayList<>();
        for (int i : taken) {
            drawn.add(all.get(i));
        }
        System.out.printf(
                "LvmChainCrashTest: %d of %d steps crashed (seed %d): %s%n", drawn.size(), all.size(), SEED, drawn);
        return drawn;
    }

    /** Runs vsm in this JVM until it crashes before {@code step}. */
    private void crash(String step, String... args) {
        TestPause.crashBefore(step);
        try {
            Vsm.Result result = vsm.run(args);
            fail("vsm %s ran past %s: %s", String.join(" ", args), step, result);
        } catch (TestPause.Crash expected) {
            // the crash
        } finally {
            TestPause.disarm();
        }
    }

    private Vsm.Started start(Chain chain, String step, String... args) {
        Vsm.Started s =
                vsm.env("VSM_JAVA_OPTS", "-Dvsm.test.pause-before=" + step).start(args);
        started.add(s);
        return s;
    }

    /**
     * Waits for each process to stop at its pause point and kills it there with SIGKILL. They take
     * the storage lock one after another: each waits for it until the one holding it is killed.
     */
    private static void killEachAtItsPause(Map<Vsm.Started, String> rounds) {
        List<Vsm.Started> waiting = new ArrayList<>(rounds.keySet());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
        while (!waiting.isEmpty()) {
            for (Vsm.Started s : List.copyOf(waiting)) {
                if (!s.process().isAlive()) {
                    fail("vsm (%s) ended before its pause point: %s", rounds.get(s), s.finish());
                }
                if (stopped(s.process())) {
                    s.process().destroyForcibly();
                    assertThat(s.finish().exit()).isEqualTo(137);
                    waiting.remove(s);
                }
            }
            assertThat(System.nanoTime())
                    .as("every vsm reached its pause point")
                    .isLessThan(deadline);
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    private static boolean stopped(Process p) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("T");
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** The intent records in the VG: LV tags {@code vsm-chain:...}. */
    private List<String> records() {
        List<String> found = new ArrayList<>();
        vg.rows("lv_tags").forEach((lv, fields) -> {
            for (String tag : fields.get(0).split(",")) {
                if (tag.startsWith("vsm-chain:")) {
                    found.add(lv + " " + tag);
                }
            }
        });
        return found;
    }

    private void verify() {
        verify(true);
    }

    /** Every chain whole and read back as its model says (each layer checked too); the VG holds their LVs only, and no record. */
    private void verify(boolean check) {
        List<String> expected = new ArrayList<>();
        for (Chain c : chains) {
            expected.addAll(c.verify(check));
        }
        assertThat(vg.lvNames()).as("the LVs of the VG").containsExactlyInAnyOrderElementsOf(expected);
        assertThat(records()).as("intent records").isEmpty();
    }

    /** A qcow2 volume of 1 MiB with {@code s1 <- s2 <- current}, known data in each layer. */
    private Chain chain(int vmid) {
        Chain chain = new Chain(vmid);
        chains.add(chain);
        assertThat(vsm.run("alloc", "san", Integer.toString(vmid), chain.lv(), "1M", "--format", "qcow2")
                        .ok()
                        .out())
                .contains(chain.volid());
        chain.write(0x11, 0, 256 * 1024);
        chain.snapshot("s1");
        chain.write(0x22, 128 * 1024, 64 * 1024);
        chain.snapshot("s2");
        chain.write(0x33, 512 * 1024, 128 * 1024);
        return chain;
    }

    /** One volume and the data its layers hold. */
    private final class Chain {
        private final int vmid;
        /** What the guest sees in the volume now. */
        byte[] current = new byte[MIB];
        /** Each snapshot's data, oldest first. */
        final Map<String, byte[]> snapshots = new LinkedHashMap<>();

        Chain(int vmid) {
            this.vmid = vmid;
        }

        String lv() {
            return "vm-" + vmid + "-disk-0.qcow2";
        }

        String volid() {
            return "san:" + lv();
        }

        String snapLv(String snapshot) {
            return "snap_vm-" + vmid + "-disk-0_" + snapshot + ".qcow2";
        }

        Path dev(String name) {
            return Path.of("/dev", vg.name(), name);
        }

        void write(int pattern, int offset, int length) {
            QemuIo.write(dev(lv()), current, pattern, offset, length);
        }

        void snapshot(String name) {
            vsm.run("snapshot", volid(), name).ok();
            snapshots.put(name, current.clone());
        }

        /** What the model holds once {@code args} is done. */
        void expectDone(String[] args) {
            switch (args[0]) {
                case "snapshot" -> snapshots.put(args[2], current.clone());
                case "rollback" -> current = snapshots.get(args[2]).clone();
                case "snapshot-delete" -> snapshots.remove(args[2]);
                case "rename-snapshot" -> {
                    Map<String, byte[]> renamed = new LinkedHashMap<>();
                    snapshots.forEach((k, v) -> renamed.put(k.equals(args[2]) ? args[3] : k, v));
                    snapshots.clear();
                    snapshots.putAll(renamed);
                }
                default -> throw new IllegalArgumentException(args[0]);
            }
        }

        /** The chain whole and each layer as the model says (and consistent: {@code check}); its LVs. */
        List<String> verify(boolean check) {
            List<String> lvs = new ArrayList<>(List.of(lv()));
            List<String> names = new ArrayList<>(snapshots.keySet());
            for (int i = names.size() - 1; i >= 0; i--) {
                lvs.add(snapLv(names.get(i)));
            }
            List<String> chain = new ArrayList<>();
            for (JsonNode image : QemuImg.backingChain(dev(lv()))) {
                chain.add(Path.of(image.get("filename").asText()).getFileName().toString());
            }
            assertThat(chain).as("the backing chain of %s, top first", lv()).isEqualTo(lvs);
            QemuIo.assertReadsAs(lv(), dev(lv()), current, sandbox);
            for (Map.Entry<String, byte[]> s : snapshots.entrySet()) {
                QemuIo.assertReadsAs(snapLv(s.getKey()), dev(snapLv(s.getKey())), s.getValue(), sandbox);
            }
            for (String name : check ? lvs : List.<String>of()) {
                QemuImg.check(dev(name));
            }
            return lvs;
        }
    }
}
