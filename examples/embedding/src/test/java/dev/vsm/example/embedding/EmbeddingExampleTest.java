package dev.vsm.example.embedding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.api.NewVolume;
import dev.vsm.api.StatusQuery;
import dev.vsm.api.StorageState;
import dev.vsm.api.VsmStorage;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedding example, in-process on real qemu-img: its volumes are real qcow2 files, the
 * clone is backed by the base, and nothing is left after the frees.
 */
class EmbeddingExampleTest {
    @TempDir
    Path dir;

    @Test
    void allocatesListsClonesAndFreesRealVolumes() throws Exception {
        ByteArrayOutputStream messages = new ByteArrayOutputStream();
        AtomicReference<String> cloneInfo = new AtomicReference<>();
        EmbeddingExample.Result r = EmbeddingExample.run(
                dir,
                new PrintStream(messages, true, StandardCharsets.UTF_8),
                clone -> cloneInfo.set(qemuImg("info", "--output=json", clone.toString())));

        assertThat(r.listed()).singleElement().satisfies(v -> {
            assertThat(v.volid()).isEqualTo("images:100/vm-100-disk-0.qcow2");
            assertThat(v.format()).isEqualTo("qcow2");
            assertThat(v.size()).isEqualTo(1L << 30);
        });
        assertThat(r.base()).hasToString("images:100/base-100-disk-0.qcow2");
        assertThat(r.basePath()).isEqualTo(dir.resolve("images/images/100/base-100-disk-0.qcow2"));
        assertThat(r.linkedClone()).hasToString("images:100/base-100-disk-0.qcow2/101/vm-101-disk-0.qcow2");
        assertThat(r.clonePath().getParent()).isEqualTo(dir.resolve("images/images/101"));
        // qemu-img itself: the clone is a qcow2 whose backing file is the base, named relative to the clone
        assertThat(cloneInfo.get())
                .contains("\"format\": \"qcow2\"")
                .contains("\"backing-filename\": \"../100/base-100-disk-0.qcow2\"")
                .contains("\"full-backing-filename\": \""
                        + r.clonePath().getParent().resolve("../100/base-100-disk-0.qcow2") + "\"");
        assertThat(messages.toString(StandardCharsets.UTF_8))
                .contains("clone 100/base-100-disk-0.qcow2: images, vm-101-disk-0.qcow2, 101");

        assertThat(r.listedAfterFree()).isEmpty();
        assertThat(r.basePath()).doesNotExist();
        assertThat(r.clonePath()).doesNotExist();
    }

    /** A configuration given as text is used as the file would be, and no file is written for it. */
    @Test
    void aConfigurationKeptInMemory() throws IOException {
        Path store = dir.resolve("store");
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("VSM_CONFIG", dir.resolve("never-read.yaml").toString());
        try (VsmStorage vsm = VsmStorage.builder()
                .configText("storages:\n  mem:\n    type: dir\n    path: " + store + "\n    content: [images]\n")
                .lockDirectory(dir.resolve("locks"))
                .environment(env)
                .build()) {
            assertThat(vsm.status(StatusQuery.all()))
                    .extracting(StorageState::storage)
                    .containsExactly("mem");
            VolumeId raw = vsm.alloc(NewVolume.of("mem", 100, 4096).format(VolumeFormat.RAW));
            assertThat(vsm.path(raw))
                    .isEqualTo(store.resolve("images/100/vm-100-disk-0.raw"))
                    .hasSize(4 << 20);
            vsm.free(raw);
            assertThat(store.resolve("images/100/vm-100-disk-0.raw")).doesNotExist();
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files).extracting(f -> f.getFileName().toString()).containsExactlyInAnyOrder("store", "locks");
        }
    }

    /**
     * A facade lives longer than a command: a storage whose activation failed (its directory
     * not there yet) is activated on its next use, once the directory is, and gets its content
     * directories then.
     */
    @Test
    void aStorageWhoseActivationFailedIsActivatedOnItsNextUse() throws IOException {
        Path store = dir.resolve("later");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (VsmStorage vsm = VsmStorage.builder()
                .configText("storages:\n  later:\n    type: dir\n    path: " + store
                        + "\n    content: [images]\n    create-base-path: 0\n")
                .lockDirectory(dir.resolve("locks"))
                .output(System.out, new PrintStream(err, true, StandardCharsets.UTF_8))
                .build()) {
            assertThat(vsm.status(StatusQuery.all()))
                    .singleElement()
                    .satisfies(row -> assertThat(row.active()).isFalse());
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("does not exist or is unreachable");
            Files.createDirectory(store);
            assertThat(vsm.status(StatusQuery.all()))
                    .singleElement()
                    .satisfies(row -> assertThat(row.active()).isTrue());
            assertThat(store.resolve("images"))
                    .as("made by the second activation")
                    .isDirectory();
        }
    }

    /** The example is what an embedder writes: it imports the API, the SPI's values and java.*, nothing of the engine. */
    @Test
    void theExampleUsesOnlyTheApi() throws IOException {
        try (Stream<Path> sources = Files.walk(Path.of("src/main/java"))) {
            List<String> imports = new ArrayList<>();
            for (Path source :
                    sources.filter(f -> f.toString().endsWith(".java")).toList()) {
                Files.readAllLines(source).stream()
                        .filter(l -> l.startsWith("import "))
                        .forEach(imports::add);
            }
            assertThat(imports)
                    .isNotEmpty()
                    .allSatisfy(line -> assertThat(line)
                            .matches("import (static )?(java\\.|dev\\.vsm\\.api\\.|dev\\.vsm\\.spi\\.).*;"));
        }
    }

    private static String qemuImg(String... args) {
        List<String> argv = new ArrayList<>(List.of("qemu-img"));
        argv.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as("%s: %s", argv, out).isZero();
            return out;
        } catch (IOException e) {
            throw new AssertionError("cannot run qemu-img (install qemu-utils): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void theDocQuotesTheExample() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent().getParent();
        String source = Files.readString(Path.of("src/main/java/dev/vsm/example/embedding/EmbeddingExample.java"));
        String doc = Files.readString(root.resolve("docs/embedding.md"));
        String marker = "// [api]";
        int from = source.indexOf(marker);
        int to = source.indexOf(marker, from + marker.length());
        assertThat(from).as("the example's first %s marker", marker).isPositive();
        assertThat(to).as("the example's second %s marker", marker).isGreaterThan(from);
        String excerpt = source.substring(source.indexOf('\n', from) + 1, source.lastIndexOf('\n', to))
                .stripIndent();
        assertThat(doc)
                .as("docs/embedding.md quotes EmbeddingExample.java between its %s markers", marker)
                .contains(excerpt);
    }
}
