package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.SlowTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Many vsm processes at the same moment: the storage lock and the config
 * lock keep them apart. 16 processes start together; each must succeed or fail with the lock's
 * own timeout message, and nothing may be half made or lost.
 */
@SlowTest
class ConcurrencyTest {
    static final int PROCESSES = 16;
    /** The only failure a process may end with when 16 queue for one lock: pve's lock timeout. */
    static final String LOCK_TIMEOUT = "got timeout";

    /**
     * The lock wait the parallel tests give vsm ({@code VSM_LOCK_TIMEOUT}): what they check is
     * that nothing is lost or half made, not how fast 16 JVMs start on a shared 2-core machine
     * (at a load average of 22, 16 edits in a row took more than pve's 10 s).
     */
    static final String LOCK_WAIT_SECONDS = "120";

    @TempDir
    Path sandbox;

    static List<Vsm.Result> together(List<Callable<Vsm.Result>> runs) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(runs.size());
        try {
            List<Future<Vsm.Result>> futures = pool.invokeAll(runs);
            List<Vsm.Result> results = new ArrayList<>();
            for (Future<Vsm.Result> f : futures) {
                results.add(f.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    /** The volume ids the successful runs created; the others must have failed on the lock timeout alone. */
    static Set<String> createdOrTimedOut(List<Vsm.Result> results) {
        Set<String> created = new HashSet<>();
        for (Vsm.Result r : results) {
            if (r.exit() == 0) {
                assertThat(r.out()).startsWith("successfully created '");
                assertThat(created.add(r.out().strip()))
                        .as("a volume id reported twice: %s", r.out())
                        .isTrue();
            } else {
                assertThat(r.exit()).as("stderr: %s", r.err()).isEqualTo(1);
                assertThat(r.err().strip()).contains(LOCK_TIMEOUT).doesNotContain("\n");
            }
        }
        return created;
    }

    @Test
    void sixteenParallelAllocsMakeSixteenDistinctWholeVolumes() throws Exception {
        Vsm vsm = new Vsm(sandbox).processes().env("VSM_LOCK_TIMEOUT", LOCK_WAIT_SECONDS);
        vsm.run("status").ok();
        List<Callable<Vsm.Result>> runs = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++) {
            String format = i % 2 == 0 ? "qcow2" : "raw";
            runs.add(() -> vsm.run("alloc", "local", "100", "", "1M", "--format", format));
        }
        Set<String> created = createdOrTimedOut(together(runs));
        assertThat(created).hasSize(PROCESSES);
        Path dir = vsm.defaultLocal().resolve("images/100");
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.sorted().toList();
        }
        // nothing half made: every file is a listed volume that qemu-img reads, no temporary is left
        assertThat(files)
                .hasSize(PROCESSES)
                .allSatisfy(f -> assertThat(f.getFileName().toString()).matches("vm-100-disk-\\d+\\.(raw|qcow2)"));
        files.forEach(QemuImg::check);
        assertThat(vsm.run("list", "local").ok().lines()).hasSize(PROCESSES + 1);
    }

    @Test
    void sixteenParallelEditsAllLandAndTheFileAlwaysParses() throws Exception {
        Vsm vsm = new Vsm(sandbox).processes().env("VSM_LOCK_TIMEOUT", LOCK_WAIT_SECONDS);
        StringBuilder yaml = new StringBuilder("storages:\n");
        for (int i = 0; i < PROCESSES / 2; i++) {
            yaml.append("  old")
                    .append(i)
                    .append(":\n    type: dir\n    path: ")
                    .append(sandbox.resolve("old" + i))
                    .append('\n');
        }
        vsm.writeConfig(yaml.toString());

        // a reader parsing the file over and over while the writers run: it must never see a torn file
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicInteger reads = new AtomicInteger();
        AtomicReference<String> torn = new AtomicReference<>();
        Thread reader = new Thread(
                () -> {
                    Load load = new Load(LoadSettings.builder().build());
                    while (writing.get() && torn.get() == null) {
                        try {
                            String text = Files.readString(vsm.config());
                            Object doc = load.loadFromString(text);
                            if (!(doc instanceof Map<?, ?> m)
                                    || !(m.get("storages") instanceof Map<?, ?> st)
                                    || st.size() < PROCESSES / 2) {
                                torn.set(text);
                            }
                            reads.incrementAndGet();
                        } catch (NoSuchFileException e) {
                            torn.set("(the file was missing for a moment)");
                        } catch (IOException | RuntimeException e) {
                            torn.set(e.toString());
                        }
                    }
                },
                "config-reader");
        reader.start();
        List<Callable<Vsm.Result>> runs = new ArrayList<>();
        for (int i = 0; i < PROCESSES / 2; i++) {
            String oldId = "old" + i;
            String newId = "new" + i;
            runs.add(() -> vsm.run("set", oldId, "--content", "iso,images", "--nodes", "node" + oldId.substring(3)));
            runs.add(() -> vsm.run(
                    "add", "dir", newId, "--path", sandbox.resolve(newId).toString(), "--content", "images"));
        }
        List<Vsm.Result> results;
        try {
            results = together(runs);
        } finally {
            writing.set(false);
            reader.join();
        }
        results.forEach(Vsm.Result::ok);
        assertThat(torn.get()).as("what the reader saw").isNull();
        assertThat(reads.get()).as("reads while writing").isPositive();
        System.out.printf(
                "ConcurrencyTest: %d parallel set/add, the reader parsed the file %d times%n", PROCESSES, reads.get());

        Map<?, ?> storages = (Map<?, ?>)
                ((Map<?, ?>) new Load(LoadSettings.builder().build()).loadFromString(Files.readString(vsm.config())))
                        .get("storages");
        for (int i = 0; i < PROCESSES / 2; i++) {
            Map<?, ?> old = (Map<?, ?>) storages.get("old" + i);
            assertThat(new TreeSet<Object>((List<?>) old.get("content")))
                    .as("old%d", i)
                    .containsExactly("images", "iso");
            assertThat(old.get("nodes")).as("old%d", i).isEqualTo(List.of("node" + i));
            assertThat(storages.containsKey("new" + i)).as("new%d", i).isTrue();
        }
        assertThat(storages).hasSize(PROCESSES);
    }

    @Test
    void setWithAStaleDigestIsRefusedAndChangesNothing() throws Exception {
        Vsm vsm = new Vsm(sandbox).processes();
        vsm.writeConfig("storages:\n  st:\n    type: dir\n    path: " + sandbox.resolve("st") + "\n");
        // the digest a user needs is in status --output-format json (pve gives it in its storage index)
        String digest = vsm.run("status", "--output-format", "json")
                .ok()
                .json()
                .get(0)
                .get("digest")
                .asText();
        assertThat(digest).matches("[0-9a-f]{40}");
        vsm.run("set", "st", "--content", "iso").ok(); // someone else's edit
        Map<String, String> before = Tree.snapshot(sandbox);
        vsm.run("set", "st", "--digest", digest, "--content", "images")
                .badInput(
                        "update storage failed: detected modified configuration - file changed by other user? Try again.");
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
        String current = vsm.run("status", "--output-format", "json")
                .ok()
                .json()
                .get(0)
                .get("digest")
                .asText();
        assertThat(current).isNotEqualTo(digest);
        vsm.run("set", "st", "--digest", current, "--content", "images").ok();
        assertThat(Files.readString(vsm.config())).contains("content: [images]\n");
    }
}
