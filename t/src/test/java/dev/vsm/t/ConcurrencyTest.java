package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several vsm processes at the same moment: the storage lock and the config lock keep them apart. */
class ConcurrencyTest {
    private static final int PROCESSES = 8;

    @TempDir
    Path sandbox;

    private List<Vsm.Result> together(List<Callable<Vsm.Result>> runs) throws Exception {
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

    @Test
    void parallelAllocsNeverPickTheSameName() throws Exception {
        Vsm vsm = new Vsm(sandbox);
        vsm.run("status").ok();
        List<Callable<Vsm.Result>> runs = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++) {
            runs.add(() -> vsm.run("alloc", "local", "100", "", "1M", "--format", "qcow2"));
        }
        Set<String> created = new HashSet<>();
        for (Vsm.Result r : together(runs)) {
            r.ok();
            created.add(r.out().strip());
        }
        assertThat(created).hasSize(PROCESSES);
        try (var files = Files.list(vsm.defaultLocal().resolve("images/100"))) {
            assertThat(files.filter(p -> p.toString().endsWith(".qcow2")).count()).isEqualTo(PROCESSES);
        }
        assertThat(vsm.run("list", "local").ok().lines()).hasSize(PROCESSES + 1);
    }

    @Test
    void parallelConfigEditsAllLand() throws Exception {
        Vsm vsm = new Vsm(sandbox);
        List<Callable<Vsm.Result>> runs = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++) {
            String id = "store" + i;
            runs.add(() -> vsm.run("add", "dir", id, "--path", sandbox.resolve(id).toString(), "--content", "images"));
        }
        together(runs).forEach(Vsm.Result::ok);
        var status = vsm.run("status", "--output-format", "json").ok().json();
        Set<String> ids = new HashSet<>();
        status.forEach(n -> ids.add(n.get("storage").asText()));
        for (int i = 0; i < PROCESSES; i++) {
            assertThat(ids).contains("store" + i);
        }
        assertThat(ids).contains("local");
    }
}
