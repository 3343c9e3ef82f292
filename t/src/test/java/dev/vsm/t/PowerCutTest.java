package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.files.ProcessStamp;
import dev.vsm.t.guest.FlakeyDevice;
import dev.vsm.t.guest.InGuest;
import dev.vsm.t.support.Images;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.GuestTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power cuts for real ({@link InGuest}): a dir storage and vsm's configuration on ext4 on a
 * dm-flakey device, whose power is cut ({@link FlakeyDevice#cut}: writes dropped, or failing
 * with EIO) at a random moment of {@code alloc} ({@code preallocation=full}), {@code clone},
 * {@code import} and {@code set}, or just after vsm reported success; then a "reboot" (unmount,
 * the device made again as the cut left it, mount: ext4 replays its journal). After each: the
 * configuration parses and holds the old or the new value; every listed image passes
 * {@code qemu-img check} with its full size (an alloc's fully allocated, an import's equal to its
 * source, a clone backed by its base); what is listed is exactly the image files, anything else
 * is a hidden temporary; and what vsm reported made before the cut is there. This is the power cut
 * that {@link DurabilityTest} can only watch for, through strace, on these machines.
 *
 * <p>vsm runs in the guest's JVM (a thread: a JVM start costs seconds there), so the temporaries
 * a cut leaves belong to a live process and {@code vsm cleanup} rightly keeps them: that part is
 * {@link CrashSafetyTest}'s. Rounds per operation: {@code -Dvsm.power-cut.rounds} (default
 * {@value #DEFAULT_ROUNDS}); the moments come from {@code -Dvsm.crash.seed} (default: the clock),
 * printed with the figures.
 */
@GuestTest
class PowerCutTest {
    static final int DEFAULT_ROUNDS = 4;
    static final int ROUNDS = Integer.getInteger("vsm.power-cut.rounds", DEFAULT_ROUNDS);
    static final long SEED = Long.getLong("vsm.crash.seed", System.nanoTime());
    private static final long MIB = 1024 * 1024;
    /** An alloc's or clone's temporary is named after its image, an import's after {@code import.<format>} (its name is chosen when it is whole). */
    private static final String TEMPORARY =
            "\\.(vm-\\d+-disk-\\d+|import)\\.(raw|qcow2)\\.vsm-tmp-.+-" + ProcessStamp.PATTERN + "-[0-9a-f]{8}";

    @RegisterExtension
    static final InGuest GUEST = InGuest.withDisksMiB(512);

    @TempDir
    Path scratch;

    private final Random random = new Random(SEED);
    private final ExecutorService vsmThread = Executors.newSingleThreadExecutor();
    private FlakeyDevice disk;
    private Vsm vsm;
    private Path store;

    @BeforeEach
    void setUp() {
        disk = FlakeyDevice.ext4("/dev/vda", Path.of("/mnt/vsm-power-cut"));
        vsm = new Vsm(disk.mount().resolve("sandbox"));
        store = disk.mount().resolve("store");
        vsm.writeConfig("storages:\n  local:\n    type: dir\n    path: " + store + "\n    content: [images]\n");
        disk.sync();
    }

    @AfterEach
    void tearDown() {
        vsmThread.shutdownNow();
        if (disk != null) {
            disk.close();
        }
    }

    /** What one round did. */
    private record Round(String where, boolean finishedFirst, Vsm.Result result) {}

    /**
     * Runs vsm in a thread, cuts the power at a random moment between its start and 110 % of
     * {@code typicalMillis} (so some cuts come after it reported success), lets it end, reboots.
     */
    private Round cutAtRandom(String what, int round, long typicalMillis, String... args) throws Exception {
        FlakeyDevice.Cut how = random.nextBoolean() ? FlakeyDevice.Cut.DROP_WRITES : FlakeyDevice.Cut.ERROR_WRITES;
        long delay = (long) (typicalMillis * 1.1 * random.nextDouble());
        disk.sync(); // what the test wrote itself is on the disk before the round
        CompletableFuture<Vsm.Result> run = CompletableFuture.supplyAsync(() -> vsm.run(args), vsmThread);
        boolean finished;
        try {
            run.get(delay, TimeUnit.MILLISECONDS);
            finished = true;
        } catch (TimeoutException e) {
            finished = false;
        }
        disk.cut(how);
        Vsm.Result r = run.get(10, TimeUnit.MINUTES);
        disk.reboot();
        String where = what + " round " + round + ", seed " + SEED + ", " + how + " after " + delay + " ms"
                + (finished ? " (vsm had finished: exit " + r.exit() + ")" : " (exit " + r.exit() + " after the cut)");
        if (finished) {
            assertThat(r.exit())
                    .as("%s: finished before the cut; stderr: %s", where, r.err())
                    .isZero();
        }
        return new Round(where, finished, r);
    }

    /** An uninterrupted run's time, the scale of the cut moments (the shorter of two: the first one loads classes). */
    private long time(String... args) {
        long start = System.nanoTime();
        vsm.run(args).ok();
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private static void report(String what, List<Round> rounds) {
        long finished = rounds.stream().filter(Round::finishedFirst).count();
        System.out.printf(
                "PowerCutTest %s: %d rounds, seed %d: %d cut while running, %d after success%n",
                what, rounds.size(), SEED, rounds.size() - finished, finished);
    }

    /** The image file a successful run reported (the last part of the volume id in {@code successfully created 'local:100/vm-100-disk-0.raw'}, a linked clone's too), or null. */
    private static String made(Vsm.Result r) {
        return r.exit() == 0 && r.out().contains("'local:")
                ? r.out().replaceAll("(?s).*'local:[^']*/([^/']+)'.*", "$1")
                : null;
    }

    /**
     * Every image file in {@code images/<vmid>} is whole ({@code whole} checks it further); hidden
     * names are temporaries; {@code vsm list} shows exactly the image files of the storage.
     * Returns the image names of {@code vmid}.
     */
    private Set<String> checkStorage(int vmid, String where, java.util.function.Consumer<Path> whole)
            throws IOException {
        Set<String> files = new TreeSet<>();
        Set<String> all = new TreeSet<>();
        if (Files.isDirectory(store.resolve("images"))) {
            try (Stream<Path> dirs = Files.list(store.resolve("images"))) {
                for (Path dir : dirs.toList()) {
                    try (Stream<Path> s = Files.list(dir)) {
                        for (Path p : s.toList()) {
                            String name = p.getFileName().toString();
                            if (name.startsWith(".")) {
                                assertThat(name)
                                        .as("%s: a hidden file that is not a temporary", where)
                                        .matches(TEMPORARY);
                                continue;
                            }
                            assertThat(name).as(where).matches("(vm|base)-\\d+-disk-\\d+\\.(raw|qcow2)");
                            all.add(dir.getFileName() + "/" + name);
                            if (dir.getFileName().toString().equals(String.valueOf(vmid))) {
                                QemuImg.check(p);
                                whole.accept(p);
                                files.add(name);
                            }
                        }
                    }
                }
            }
        }
        Set<String> listed = new TreeSet<>();
        Vsm.Result list = vsm.run("list", "local", "--output-format", "json").ok();
        for (JsonNode v : list.json()) {
            // a linked clone's volume name starts with its base's: 100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2
            listed.add(v.get("volid").asText().substring("local:".length()).replaceAll("^.*\\.qcow2/", ""));
        }
        assertThat(listed).as("%s: vsm list (stderr: %s)", where, list.err()).isEqualTo(all);
        return files;
    }

    @Test
    void cutDuringAllocLeavesWholeImagesOrNone() throws Exception {
        String[] qcow2 = {"alloc", "local", "100", "", "16M", "--format", "qcow2", "--preallocation", "full"};
        String[] raw = {"alloc", "local", "100", "", "16M", "--format", "raw", "--preallocation", "full"};
        long typical = Math.min(time(qcow2), time(raw));
        List<Round> rounds = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
            Round r = cutAtRandom("alloc", i, typical, i % 2 == 0 ? qcow2 : raw);
            rounds.add(r);
            Set<String> images = checkStorage(100, r.where(), p -> {
                JsonNode info = QemuImg.info(p);
                assertThat(info.get("virtual-size").asLong())
                        .as("%s: %s", r.where(), p)
                        .isEqualTo(16 * MIB);
                assertThat(info.get("actual-size").asLong())
                        .as("%s: %s fully allocated", r.where(), p)
                        .isGreaterThanOrEqualTo(16 * MIB);
            });
            if (made(r.result()) != null && r.finishedFirst()) {
                assertThat(images)
                        .as("%s: what vsm reported made before the cut", r.where())
                        .contains(made(r.result()));
            }
        }
        report("alloc", rounds);
    }

    @Test
    void cutDuringCloneLeavesWholeClonesOrNone() throws Exception {
        vsm.run("alloc", "local", "100", "", "16M", "--format", "qcow2").ok();
        vsm.run("create-base", "local:100/vm-100-disk-0.qcow2").ok();
        String[] clone = {"clone", "local:100/base-100-disk-0.qcow2", "101"};
        long typical = Math.min(time(clone), time(clone));
        List<Round> rounds = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
            Round r = cutAtRandom("clone", i, typical, clone);
            rounds.add(r);
            Set<String> images = checkStorage(101, r.where(), p -> {
                JsonNode info = QemuImg.info(p);
                assertThat(info.get("virtual-size").asLong())
                        .as("%s: %s", r.where(), p)
                        .isEqualTo(16 * MIB);
                assertThat(info.get("backing-filename").asText())
                        .as("%s: %s", r.where(), p)
                        .isEqualTo("../100/base-100-disk-0.qcow2");
            });
            if (made(r.result()) != null && r.finishedFirst()) {
                assertThat(images)
                        .as("%s: what vsm reported made before the cut", r.where())
                        .contains(made(r.result()));
            }
        }
        report("clone", rounds);
    }

    @Test
    void cutDuringImportLeavesWholeCopiesOrNone() throws Exception {
        Path source = Images.raw(scratch, "source.raw", 16, 11);
        String[] importRaw = {"import", "local", "102", source.toString(), "--format", "raw", "--quiet"};
        long typical = Math.min(time(importRaw), time(importRaw));
        List<Round> rounds = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
            Round r = cutAtRandom("import", i, typical, importRaw);
            rounds.add(r);
            Set<String> images = checkStorage(
                    102,
                    r.where(),
                    p -> assertThat(Images.same(source, "raw", p, "raw"))
                            .as("%s: %s equals its source", r.where(), p)
                            .isTrue());
            if (r.result().exit() == 0 && r.finishedFirst()) {
                assertThat(images).as("%s: imports before the cut", r.where()).hasSizeGreaterThan(0);
            }
        }
        report("import", rounds);
    }

    private static Set<Object> contentOf(byte[] config, String where) {
        Map<?, ?> st =
                (Map<?, ?>) ((Map<?, ?>) CrashSafetyTest.parse(config, where).get("storages")).get("local");
        return new TreeSet<>((List<?>) st.get("content"));
    }

    @Test
    void cutDuringSetLeavesTheOldOrTheNewConfiguration() throws Exception {
        Path config = vsm.config();
        List<String> kinds = List.of("images", "iso", "backup", "snippets", "vztmpl", "rootdir");
        long typical =
                Math.min(time("set", "local", "--content", "images,iso"), time("set", "local", "--content", "images"));
        List<Round> rounds = new ArrayList<>();
        for (int i = 0; i < ROUNDS; i++) {
            byte[] old = Files.readAllBytes(config);
            List<String> content = new ArrayList<>(new TreeSet<>(
                    List.of(kinds.get(random.nextInt(kinds.size())), kinds.get(random.nextInt(kinds.size())))));
            Round r = cutAtRandom("set", i, typical, "set", "local", "--content", String.join(",", content));
            rounds.add(r);
            byte[] now = Files.readAllBytes(config);
            Map<?, ?> st = (Map<?, ?>)
                    ((Map<?, ?>) CrashSafetyTest.parse(now, r.where()).get("storages")).get("local");
            if (!java.util.Arrays.equals(old, now)) {
                assertThat(new TreeSet<>((List<?>) st.get("content")))
                        .as("%s: a changed file holds the new value", r.where())
                        .isEqualTo(new TreeSet<>(content));
            } else if (!new TreeSet<>(content).equals(contentOf(old, r.where()))) {
                assertThat(r.finishedFirst() && r.result().exit() == 0)
                        .as("%s: set reported success before the cut, the file is old", r.where())
                        .isFalse();
            }
            assertThat(st.get("path")).as(r.where()).isEqualTo(store.toString());
            for (Path temp : CrashSafetyTest.temporaries(config)) {
                assertThat(temp.getFileName().toString()).as(r.where()).startsWith(".storage.yaml.tmp-");
            }
        }
        report("set", rounds);
    }
}
