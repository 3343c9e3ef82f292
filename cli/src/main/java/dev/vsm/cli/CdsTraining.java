package dev.vsm.cli;

import dev.vsm.env.Environment;
import dev.vsm.lock.LockDirectory;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The training run behind vsm's class-data sharing archive: the build runs it once with
 * {@code -XX:DumpLoadedClassList}, and the JVM then dumps every class it loaded, parsed and
 * verified, into the archive that {@code cli/vsm} maps at start-up; {@code cli/vsm} runs it with
 * {@code -XX:AOTCacheOutput} on a java that has ahead-of-time caches. It runs the read-only
 * commands scripts call in loops (and their machine formats, help, the version, and dry runs of
 * alloc, clone and free) against a throw-away configuration, and one {@code path} against the
 * machine's (the built-in default where there is none), so it changes nothing on the machine;
 * given a lock directory of its own ({@code $VSM_LOCK_DIR}), a real alloc and free too.
 */
public final class CdsTraining {
    private CdsTraining() {}

    public static void main(String[] args) throws IOException {
        Path sandbox = Files.createTempDirectory("vsm-cds-training");
        try {
            Path config = sandbox.resolve("storage.yaml");
            Files.writeString(
                    config,
                    "storages:\n  local:\n    type: dir\n    path: " + sandbox.resolve("store")
                            + "\n    content: [images, rootdir, iso, vztmpl, backup, snippets, import]\n");
            Files.createDirectories(sandbox.resolve("store/images/100"));
            Files.createFile(sandbox.resolve("store/images/100/base-100-disk-0.qcow2"));
            String cfg = "--config=" + config;
            List<List<String>> commands = List.of(
                    List.of("status", cfg),
                    List.of("status", cfg, "--output-format", "json"),
                    List.of("list", "local", cfg),
                    List.of("list", "local", cfg, "--output-format", "yaml"),
                    List.of("path", "local:100/vm-100-disk-0.qcow2", cfg),
                    // no --config: the built-in default, on a machine without a configuration
                    // (path reads the configuration and needs nothing to exist)
                    List.of("path", "local:100/vm-100-disk-0.qcow2"),
                    List.of(
                            "volid",
                            sandbox.resolve("store/images/100/vm-100-disk-0.raw")
                                    .toString(),
                            cfg),
                    List.of("info", "local:100/vm-100-disk-0.qcow2", cfg),
                    List.of("free", "--dry-run", "local:100/vm-100-disk-0.raw", cfg),
                    List.of("alloc", "--dry-run", "local", "100", "vm-100-disk-0.qcow2", "1G", cfg),
                    List.of("alloc", "--dry-run", "local", "100", "", "1G", "--format", "raw", cfg),
                    List.of("clone", "--dry-run", "local:100/base-100-disk-0.qcow2", "101", cfg),
                    List.of("plugins", cfg),
                    List.of("apiinfo", "--output-format", "json-pretty"),
                    List.of("--help"),
                    List.of("help"),
                    List.of("help", "status"),
                    List.of("--version"),
                    List.of("status", "--bad-option"));
            PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
            for (List<String> command : commands) {
                Main.run(command.toArray(String[]::new), nowhere, nowhere);
            }
            if (Environment.system().get(LockDirectory.ENV) != null) {
                // a real alloc and free (the lock, qemu-img, the temporary file and its move), only
                // when the caller gave vsm a lock directory of the training's own: without one they
                // would lock in the machine's; between them, a listing and the info of a real image
                // (its header read, its allocated bytes, qemu-img's JSON)
                for (List<String> command : List.of(
                        List.of("alloc", "local", "100", "vm-100-disk-1.qcow2", "1M", "--format", "qcow2", cfg),
                        List.of("list", "local", cfg),
                        List.of("info", "local:100/vm-100-disk-1.qcow2", cfg),
                        List.of("free", "local:100/vm-100-disk-1.qcow2", cfg))) {
                    Main.run(command.toArray(String[]::new), nowhere, nowhere);
                }
            }
        } finally {
            delete(sandbox);
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
