package dev.vsm.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.files.ProcessStamp;
import dev.vsm.spi.StorageException;
import dev.vsm.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;

/** Concurrent edits all land: each one re-reads the file under the lock, so none overwrites another. */
class ConcurrentEditTest {
    @TempDir
    Path tmp;

    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (Process p : children) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private static List<String> ids(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> prefix + "-" + i).toList();
    }

    @Test
    void editsFromManyThreadsAllLand() throws Exception {
        ConfigFiles files = new ConfigFiles(tmp);
        int threads = 6;
        int perThread = 10;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String prefix = "t" + t;
            ConfigStore store = files.store(); // one store and one FileLocks per thread, like separate engines
            futures.add(pool.submit(() -> {
                start.await();
                for (String id : ids(prefix, perThread)) {
                    store.add("lvm", id, Map.of("vgname", "vg"));
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : futures) {
            f.get(120, TimeUnit.SECONDS);
        }
        StorageConfigs result = files.load();
        assertThat(result.ids()).hasSize(1 + threads * perThread).contains("local");
        for (int t = 0; t < threads; t++) {
            assertThat(result.ids()).containsSubsequence(ids("t" + t, perThread));
        }
    }

    @Test
    void editsFromSeveralProcessesAllLand() throws Exception {
        ConfigFiles files = new ConfigFiles(tmp);
        int perProcess = 25;
        for (String prefix : List.of("p1", "p2")) {
            children.add(ChildJvm.start(
                    ConfigEditorMain.class,
                    List.of(ConfigStore.class, StorageException.class, ProcessStamp.class, Compose.class),
                    files.file.toString(),
                    files.lockDir.toString(),
                    files.localDir.toString(),
                    prefix,
                    Integer.toString(perProcess)));
        }
        List<BufferedReader> outputs = new ArrayList<>();
        for (Process child : children) {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("ready");
            outputs.add(out);
        }
        for (Process child : children) {
            child.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
            child.getOutputStream().flush();
        }
        ConfigStore store = files.store();
        for (String id : ids("p0", perProcess)) {
            store.add("lvm", id, Map.of("vgname", "vg"));
        }
        for (int i = 0; i < children.size(); i++) {
            Process child = children.get(i);
            List<String> lines = outputs.get(i).lines().toList();
            assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
            // waiting for the other writers is expected ("trying to acquire lock... OK"), failing is not
            assertThat(lines).last().isEqualTo("done");
            assertThat(lines).allMatch(l -> l.equals("done") || l.equals("trying to acquire lock... OK"));
            assertThat(child.exitValue()).isZero();
        }
        StorageConfigs result = files.load();
        assertThat(result.ids()).hasSize(1 + 3 * perProcess);
        for (String prefix : List.of("p0", "p1", "p2")) {
            assertThat(result.ids()).containsSubsequence(ids(prefix, perProcess));
        }
    }
}
