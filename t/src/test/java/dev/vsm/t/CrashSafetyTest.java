package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.files.ProcessStamp;
import dev.vsm.t.support.Crashes;
import dev.vsm.t.support.LvmSandbox;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import dev.vsm.testing.SlowTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Crash safety: vsm is killed with SIGKILL at a random moment of {@code set},
 * {@code alloc}, {@code clone} and {@code free} (LVM saferemove), round after round. After each
 * kill the configuration holds the old or the new version and parses, and every volume is
 * either whole (listed, {@code qemu-img check} passes) or absent; temporary files left behind are
 * only ever the killed process's own, and the next command ({@code set}, {@code alloc},
 * {@code vsm cleanup}) removes them; an interrupted saferemove is finished by {@code vsm cleanup}.
 *
 * <p>Rounds per operation: {@code -Dvsm.crash.rounds} (default {@value #DEFAULT_ROUNDS}, which
 * is the 50: about 2.5 minutes for the class on these machines; fewer for a quick run,
 * {@code mvn -pl t -am verify -Dtest=CrashSafetyTest -Dvsm.crash.rounds=5}). The moment of each
 * kill is drawn from {@code -Dvsm.crash.seed} (default: the clock), printed with the figures;
 * half the kills land between 30 % and 100 % of the time an uninterrupted run took, the other
 * half within {@value #CHILD_WINDOW_MILLIS} ms of vsm starting its first external command, so
 * that many land while qemu-img or lvm2 is writing rather than while the JVM starts.
 */
@SlowTest
class CrashSafetyTest {
    static final int DEFAULT_ROUNDS = 50;
    static final int ROUNDS = Integer.getInteger("vsm.crash.rounds", DEFAULT_ROUNDS);
    static final long SEED = Long.getLong("vsm.crash.seed", System.nanoTime());

    @TempDir
    Path sandbox;

    /** Half the kills land within this many ms of vsm starting its first command. */
    private static final int CHILD_WINDOW_MILLIS = 40;

    private final Random random = new Random(SEED);
    private final Crashes crashes = new Crashes(random, CHILD_WINDOW_MILLIS, 120);
    private Vsm vsm;

    @AfterEach
    void release() {
        if (vsm != null) {
            vsm.releaseImmutable();
        }
    }

    /** Runs vsm once, uninterrupted, and returns how long it took (the scale of the kill moments). */
    private long timeOnce(String... args) {
        long start = System.nanoTime();
        vsm.run(args).ok();
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /** The shorter of two uninterrupted runs (the first one reads cold caches). */
    private long timeTwice(String[] first, String[] second) {
        return Math.min(timeOnce(first), timeOnce(second));
    }

    private Crashes.Kill killAtRandom(long typicalMillis, String... args) throws InterruptedException {
        return crashes.killAtRandom(vsm, typicalMillis, args);
    }

    private static void report(String what, int rounds, int finished) {
        System.out.printf(
                "CrashSafetyTest %s: %d rounds, seed %d: %d killed while running, %d had finished%n",
                what, rounds, SEED, rounds - finished, finished);
    }

    // --- set

    @Test
    void killedSetLeavesTheOldOrTheNewFile() throws Exception {
        vsm = new Vsm(sandbox);
        Path config = vsm.config();
        vsm.writeConfig(
                "storages:\n  st:\n    type: dir\n    path: " + sandbox.resolve("st") + "\n    content: [images]\n");
        List<String> kinds = List.of("images", "iso", "backup", "snippets", "vztmpl", "rootdir");
        long typical = timeTwice(
                new String[] {"set", "st", "--content", "images,iso"},
                new String[] {"set", "st", "--content", "images"});
        int finished = 0;
        for (int round = 0; round < ROUNDS; round++) {
            byte[] old = Files.readAllBytes(config);
            List<String> content = new ArrayList<>(new TreeSet<>(
                    List.of(kinds.get(random.nextInt(kinds.size())), kinds.get(random.nextInt(kinds.size())))));
            Crashes.Kill kill = killAtRandom(typical, "set", "st", "--content", String.join(",", content));
            finished += kill.finishedFirst() ? 1 : 0;
            byte[] now = Files.readAllBytes(config);
            String where = "round " + round + ", seed " + SEED;
            if (!java.util.Arrays.equals(old, now)) {
                Map<?, ?> st = (Map<?, ?>) ((Map<?, ?>) parse(now, where).get("storages")).get("st");
                assertThat(new TreeSet<>((List<?>) st.get("content")))
                        .as("%s: a changed file holds the new value", where)
                        .isEqualTo(new TreeSet<>(content));
                assertThat(st.get("path"))
                        .as(where)
                        .isEqualTo(sandbox.resolve("st").toString());
            }
            // what a killed writer may leave: its own temporary file, never one of a live process
            for (Path temp : temporaries(config)) {
                assertThat(temp.getFileName().toString()).as(where).startsWith(".storage.yaml.tmp-");
            }
        }
        report("set", ROUNDS, finished);
        int leftBefore = temporaries(config).size();
        // a set that changes the file: one that changes nothing writes nothing, and so tidies
        // nothing (when every round was killed before its rename, the file still holds images)
        Map<?, ?> st = (Map<?, ?>) ((Map<?, ?>)
                        parse(Files.readAllBytes(config), "after the rounds").get("storages"))
                .get("st");
        String next = new TreeSet<>((List<?>) st.get("content")).equals(Set.of("images")) ? "images,iso" : "images";
        vsm.run("set", "st", "--content", next).ok();
        assertThat(temporaries(config))
                .as("the next change removes the %d left by killed ones", leftBefore)
                .isEmpty();
        vsm.run("status").ok();
    }

    static Map<?, ?> parse(byte[] bytes, String where) {
        Object doc = new Load(LoadSettings.builder().build()).loadFromString(new String(bytes, StandardCharsets.UTF_8));
        assertThat(doc).as("%s: the file parses to a mapping", where).isInstanceOf(Map.class);
        return (Map<?, ?>) doc;
    }

    static List<Path> temporaries(Path config) throws IOException {
        try (Stream<Path> s = Files.list(config.getParent())) {
            return s.filter(p -> !p.equals(config)).toList();
        }
    }

    // --- alloc and clone on dir

    @Test
    void killedAllocLeavesWholeImagesOrNone() throws Exception {
        vsm = new Vsm(sandbox);
        Path store = sandbox.resolve("store");
        vsm.writeConfig("storages:\n  local:\n    type: dir\n    path: " + store + "\n    content: [images]\n");
        // preallocation=full makes qemu-img write every byte: a window for the kill inside qemu-img
        String[] qcow2 = {"alloc", "local", "100", "", "8M", "--format", "qcow2", "--preallocation", "full"};
        String[] raw = {"alloc", "local", "100", "", "8M", "--format", "raw", "--preallocation", "full"};
        long typical = timeTwice(qcow2, raw);
        Path dir = store.resolve("images/100");
        Map<Path, Long> checked = new HashMap<>();
        int finished = 0;
        for (int round = 0; round < ROUNDS; round++) {
            Crashes.Kill kill = killAtRandom(typical, round % 2 == 0 ? qcow2 : raw);
            finished += kill.finishedFirst() ? 1 : 0;
            checkImages(dir, checked, 8 << 20, true, "round " + round + ", seed " + SEED);
        }
        report("alloc", ROUNDS, finished);
        finishAndCompare(store, dir, "local");
    }

    @Test
    void killedCloneLeavesWholeClonesOrNone() throws Exception {
        vsm = new Vsm(sandbox);
        Path store = sandbox.resolve("store");
        vsm.writeConfig("storages:\n  local:\n    type: dir\n    path: " + store + "\n    content: [images]\n");
        vsm.run("alloc", "local", "100", "", "4M", "--format", "qcow2").ok();
        vsm.run("create-base", "local:100/vm-100-disk-0.qcow2").ok();
        String[] clone = {"clone", "local:100/base-100-disk-0.qcow2", "101"};
        long typical = timeTwice(clone, clone);
        Path dir = store.resolve("images/101");
        Map<Path, Long> checked = new HashMap<>();
        int finished = 0;
        for (int round = 0; round < ROUNDS; round++) {
            Crashes.Kill kill = killAtRandom(typical, clone);
            finished += kill.finishedFirst() ? 1 : 0;
            String where = "round " + round + ", seed " + SEED;
            checkImages(dir, checked, 4 << 20, false, where);
            for (Path image : checked.keySet()) {
                assertThat(QemuImg.info(image).get("backing-filename").asText())
                        .as(where)
                        .isEqualTo("../100/base-100-disk-0.qcow2");
            }
        }
        report("clone", ROUNDS, finished);
        finishAndCompare(store, dir, "local");
    }

    /**
     * Every image name in {@code dir} is a whole image (qemu-img check; each checked once per
     * size); every other entry is a temporary of a process that is gone.
     */
    private static void checkImages(
            Path dir, Map<Path, Long> checked, long expectedSize, boolean preallocated, String where)
            throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) {
                String name = p.getFileName().toString();
                if (name.startsWith(".")) {
                    assertThat(name)
                            .as("%s: a hidden file that is not an abandoned temporary", where)
                            .matches("\\.vm-\\d+-disk-\\d+\\.(raw|qcow2)\\.vsm-tmp-.+-" + ProcessStamp.PATTERN
                                    + "-[0-9a-f]{8}");
                    String stamp = name.replaceAll(".*-(" + ProcessStamp.PATTERN + ")-[0-9a-f]{8}$", "$1");
                    assertThat(ProcessStamp.parse(stamp).orElseThrow().running())
                            .as("%s: %s belongs to a live process", where, name)
                            .isFalse();
                    continue;
                }
                assertThat(name).as(where).matches("vm-\\d+-disk-\\d+\\.(raw|qcow2)");
                long size = Files.size(p);
                if (!Long.valueOf(size).equals(checked.get(p))) {
                    QemuImg.check(p);
                    var info = QemuImg.info(p);
                    assertThat(info.get("virtual-size").asLong())
                            .as("%s: %s", where, name)
                            .isEqualTo(expectedSize);
                    if (preallocated) {
                        assertThat(info.get("actual-size").asLong())
                                .as("%s: %s fully allocated", where, name)
                                .isGreaterThanOrEqualTo(expectedSize);
                    }
                    checked.put(p, size);
                }
            }
        }
    }

    /** {@code vsm cleanup} removes what the kills left; then the directory holds exactly the listed volumes. */
    private void finishAndCompare(Path store, Path dir, String storage) throws IOException {
        vsm.run("cleanup", storage).ok();
        Set<String> files = new TreeSet<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.forEach(p -> files.add(p.getFileName().toString()));
        }
        assertThat(files)
                .as("after cleanup, seed %d", SEED)
                .allSatisfy(f -> assertThat(f).doesNotStartWith("."));
        Set<String> listed = new TreeSet<>();
        for (var v : vsm.run("list", storage, "--output-format", "json").ok().json()) {
            String volid = v.get("volid").asText();
            if (volid.contains(store.relativize(dir).getFileName() + "/vm-")) {
                listed.add(volid.substring(volid.lastIndexOf('/') + 1));
            }
        }
        assertThat(listed).isEqualTo(files);
        System.out.printf("CrashSafetyTest: %d whole images in %s after the kills%n", files.size(), dir.getFileName());
    }

    // --- free with saferemove on LVM

    @RootTest
    @Test
    void killedSaferemoveIsFinishedByCleanup() throws Exception {
        // room for a del- LV from every round (a free finishes the pending ones before its own, and a
        // kill may stop it at any of them), the round's volume and the first one, 4 MiB each
        try (LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(4L * (ROUNDS + 8)).create()) {
            killedSaferemoveIsFinishedByCleanup(vg);
        }
    }

    private void killedSaferemoveIsFinishedByCleanup(LoopVolumeGroup vg) throws Exception {
        vsm = LvmSandbox.vsm(sandbox, vg, "saferemove: true");
        String created = vsm.run("alloc", "san", "100", "", "4M").ok().out();
        String first = created.replaceAll("(?s).*'san:(.*)'.*", "$1");
        long typical = timeOnce("free", "san:" + first);
        int finished = 0;
        int renamedOnly = 0;
        String target = null;
        for (int round = 0; round < ROUNDS; round++) {
            if (target == null) {
                String out = vsm.run("alloc", "san", "100", "", "4M").ok().out();
                target = out.replaceAll("(?s).*'san:(.*)'.*", "$1");
            }
            Crashes.Kill kill = killAtRandom(typical, "free", "san:" + target);
            finished += kill.finishedFirst() ? 1 : 0;
            List<String> lvs = vg.lvNames();
            String where = "round " + round + ", seed " + SEED + ", LVs " + lvs;
            boolean whole = lvs.contains(target);
            boolean pending = lvs.contains("del-" + target);
            assertThat(whole && pending)
                    .as("%s: %s both whole and pending", where, target)
                    .isFalse();
            for (String lv : lvs) {
                assertThat(lv).as(where).matches("(del-)?vm-100-disk-\\d+");
            }
            if (pending) {
                renamedOnly++;
            }
            if (!whole) {
                target = null; // renamed (pending) or gone: the next round frees a new volume
            }
        }
        report("free (saferemove)", ROUNDS, finished);
        Vsm.Result cleanup = vsm.run("cleanup", "san").ok();
        List<String> after = vg.lvNames();
        assertThat(after)
                .as("after cleanup (%s), seed %d", cleanup.out().strip(), SEED)
                .noneMatch(lv -> lv.startsWith("del-"));
        Set<String> listed = new TreeSet<>();
        vsm.run("list", "san", "--output-format", "json")
                .ok()
                .json()
                .forEach(v -> listed.add(v.get("volid").asText().substring(4)));
        assertThat(listed).isEqualTo(new TreeSet<>(after));
        System.out.printf(
                "CrashSafetyTest free: %d rounds left a pending del- volume; later frees and vsm cleanup finished them (%s)%n",
                renamedOnly, cleanup.out().strip());
    }
}
