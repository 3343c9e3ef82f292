package dev.vsm.plugin.dir;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vsm.engine.DefaultStorageContext;
import dev.vsm.spi.StorageConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A dir storage under a temporary directory, opened on the framework's real context (real
 * qemu-img, real files), plus helpers that run real tools to look at the result.
 */
final class TestStorage {
    final Path root;
    final RecordingConsole console = new RecordingConsole();
    final DefaultStorageContext context;
    final DirStorage storage;

    private TestStorage(Path root, Map<String, Object> properties, boolean dryRun, Path mounts) {
        this.root = root;
        this.context = DefaultStorageContext.builder(console).dryRun(dryRun).build();
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("path", root.toString());
        props.putAll(properties);
        this.storage = new DirStorage(
                new StorageConfig("local", "dir", props), context, new MountTable(mounts), () -> ZoneId.of("UTC"));
    }

    static TestStorage in(Path root) {
        return new TestStorage(root, Map.of(), false, MountTable.PROC_MOUNTS);
    }

    static TestStorage in(Path root, Map<String, Object> properties) {
        return new TestStorage(root, properties, false, MountTable.PROC_MOUNTS);
    }

    static TestStorage dryRun(Path root, Map<String, Object> properties) {
        return new TestStorage(root, properties, true, MountTable.PROC_MOUNTS);
    }

    static TestStorage withMounts(Path root, Map<String, Object> properties, Path mounts) {
        return new TestStorage(root, properties, false, mounts);
    }

    /** {@code qemu-img info --output=json}, run here independently of the code under test. */
    static JsonNode qemuInfo(Path image) {
        return json(run("/usr/bin/qemu-img", "info", "--output=json", image.toString()));
    }

    static JsonNode json(String text) {
        try {
            return new ObjectMapper().readTree(text);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }

    /** Runs a tool, asserts it succeeded and returns its output. */
    static String run(String... argv) {
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as("%s: %s", String.join(" ", argv), out).isZero();
            return out;
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Clears the immutable flag that create-base sets (as root on ext4 it sticks), so that the
     * temporary directory can be removed. Harmless where chattr does not apply.
     */
    static void clearImmutable(Path dir) {
        try {
            Process p = new ProcessBuilder("/usr/bin/chattr", "-R", "-f", "-i", dir.toString())
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            p.waitFor();
        } catch (IOException e) {
            // no chattr: nothing was made immutable either
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static boolean isImmutable(Path file) {
        String out = run("/usr/bin/lsattr", "-d", file.toString());
        return out.substring(0, out.indexOf(' ')).contains("i");
    }

    /** Every file and directory under {@code dir}, relative, sorted. */
    static List<String> tree(Path dir) {
        List<String> found = new ArrayList<>();
        try (var walk = Files.walk(dir)) {
            walk.filter(p -> !p.equals(dir))
                    .forEach(p -> found.add(dir.relativize(p) + (Files.isDirectory(p) ? "/" : "")));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        found.sort(null);
        return found;
    }
}
