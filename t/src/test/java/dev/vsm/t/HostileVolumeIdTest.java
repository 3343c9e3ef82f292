package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.cli.Main;
import dev.vsm.t.support.HostileFragments;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile volume ids and names: a seeded generator of path traversals
 * ({@code ../}, absolute paths, {@code %2e%2e}), NUL and control characters, over-long names,
 * unicode look-alikes, spaces and shell metacharacters, against {@code path}, {@code info},
 * {@code alloc}, {@code free} and {@code volid}.
 *
 * <p>Each generated id holds at least one thing no volume name may hold (a {@code .} or
 * {@code ..} component, a name that is a path, a control character, white space, a component
 * longer than 255 bytes, a bad storage id): each must get exit 2 and one line on stderr, and
 * change nothing — checked with {@link Tree} snapshots of the sandbox and of a directory beside
 * it holding canary files that the traversals aim at. A host path given to {@code volid} is the
 * exception: where its only fault is a {@code //} or {@code /./}, it must get the answer the path
 * without them gets, whether the file exists or not. Names that are odd but legal in pve's
 * grammar (look-alikes, {@code %2e%2e}, {@code $(...)} without spaces) are a second corpus: they
 * must stay inside the storage. No run may reach a shell: a {@code touch} of a marker file is in
 * every metacharacter fragment, and the marker must never appear.
 *
 * <p>The corpus runs in-process ({@link Main#run}) for speed; a sample of it runs end to end
 * through {@code cli/vsm}. Seed: {@code -Dvsm.hostile.seed} (default: the clock), printed.
 */
class HostileVolumeIdTest {
    static final long SEED = Long.getLong("vsm.hostile.seed", System.nanoTime());
    static final int PER_COMMAND = Integer.getInteger("vsm.hostile.cases", 150);

    @TempDir
    Path root;

    private Path sandbox;
    private Path outside;
    private Path store;
    private Path config;
    private Path marker;
    private Random random;
    private HostileFragments fragments;

    @BeforeEach
    void setUp() throws Exception {
        sandbox = Files.createDirectories(root.resolve("sandbox"));
        outside = Files.createDirectories(root.resolve("outside"));
        store = sandbox.resolve("store");
        config = sandbox.resolve("etc/storage.yaml");
        marker = outside.resolve("PWNED");
        Files.createDirectories(config.getParent());
        Files.writeString(config, """
                storages:
                  local:
                    type: dir
                    path: %s
                    content: [images, iso, snippets, backup]
                """.formatted(store));
        Files.createDirectories(outside.resolve("images/100"));
        Files.writeString(outside.resolve("canary.raw"), "canary");
        Files.writeString(outside.resolve("images/100/vm-100-disk-0.raw"), "canary");
        Files.writeString(outside.resolve("snippets.txt"), "canary");
        assertThat(run("alloc", "local", "100", "vm-100-disk-0.raw", "1M").exit).isZero();
        assertThat(run("alloc", "local", "100", "vm-100-disk-1.qcow2", "1M").exit)
                .isZero();
        random = new Random(SEED);
        fragments = new HostileFragments(random, marker);
    }

    @AfterEach
    void noShell() {
        assertThat(marker).as("a metacharacter reached a shell (seed %d)", SEED).doesNotExist();
    }

    private record Outcome(int exit, String out, String err) {}

    private Outcome run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> argv = new ArrayList<>(List.of(
                "--config",
                config.toString(),
                "--plugin-dir",
                sandbox.resolve("plugins").toString()));
        argv.addAll(List.of(args));
        int exit = Main.run(
                argv.toArray(String[]::new),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Outcome(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    // --- the generator

    /** A relative path from {@code images/100/} of the store to the canaries. */
    private String upToOutside() {
        return "../".repeat(store.resolve("images/100").getNameCount() - root.getNameCount()) + "outside/";
    }

    /** Look-alikes of dots and slashes, percent-encodings, invisible and bidi characters: legal in a file name. */
    private String oddButLegal() {
        String[] forms = {
            "\u2024\u2024\u2215",
            "\uFF0E\uFF0E\uFF0F",
            "\u2025\u2044",
            "%2e%2e%2f",
            "..%2f",
            "\u0430dmin",
            "\u200b",
            "\u202e",
            "$(touch${IFS}" + marker.getFileName() + ")",
            "`id`",
            ";id",
            "|id"
        };
        return forms[random.nextInt(forms.length)];
    }

    /** One fragment no volume name may hold. */
    private String poison() {
        return switch (random.nextInt(9)) {
            case 0 -> "../";
            case 1 -> "/..";
            case 2 -> upToOutside() + "canary.raw";
            case 3 -> outside.resolve("canary.raw").toString();
            case 4 -> fragments.control();
            case 5 -> " /";
            case 6 -> "x".repeat(256 + random.nextInt(4000));
            case 7 -> "/./";
            default -> "\t" + fragments.shell();
        };
    }

    /** An image or content name with at least one poison fragment, decorated. */
    private String hostileName(String extension) {
        StringBuilder b = new StringBuilder();
        int count = 1 + random.nextInt(3);
        for (int i = 0; i < count; i++) {
            switch (random.nextInt(4)) {
                case 0 -> b.append(fragments.lookAlike());
                case 1 -> b.append(fragments.shell());
                default -> b.append("vm-100-disk-").append(random.nextInt(3));
            }
        }
        int at = random.nextInt(b.length() + 1);
        b.insert(at, poison());
        return b + extension;
    }

    private String hostileVolid() {
        String[] prefixes = {
            "local:100/",
            "local:iso/",
            "local:snippets/",
            "local:backup/",
            "local:100/base-100-disk-1.qcow2/101/",
            "local:",
            "local:100/vm-100-disk-0.raw/"
        };
        String[] extensions = {".raw", ".qcow2", ".iso", "", ".txt"};
        if (random.nextInt(8) == 0) {
            // a hostile storage id
            return hostileName("") + ":100/vm-100-disk-0.raw";
        }
        return prefixes[random.nextInt(prefixes.length)] + hostileName(extensions[random.nextInt(extensions.length)]);
    }

    // --- the properties

    /** Exit 2, one line on stderr, nothing on stdout, nothing changed in the sandbox or beside it. */
    private void refused(String what, String... args) {
        Map<String, String> sandboxBefore = Tree.snapshot(sandbox);
        Map<String, String> outsideBefore = Tree.snapshot(outside);
        Outcome o = run(args);
        String shown = VsmPrintable.of(String.join(" ", args));
        assertThat(o.exit)
                .as("%s: exit of vsm %s (seed %d); stderr %s", what, shown, SEED, o.err)
                .isEqualTo(2);
        assertThat(o.err.strip())
                .as("%s: stderr of vsm %s (seed %d)", what, shown, SEED)
                .isNotEmpty()
                .doesNotContain("\n");
        assertThat(o.err).as("%s: no stack trace", what).doesNotContain("\tat ").doesNotContain("internal error");
        assertThat(Tree.snapshot(sandbox))
                .as("%s: vsm %s changed the sandbox (seed %d)", what, shown, SEED)
                .isEqualTo(sandboxBefore);
        assertThat(Tree.snapshot(outside))
                .as("%s: vsm %s changed files outside (seed %d)", what, shown, SEED)
                .isEqualTo(outsideBefore);
    }

    /**
     * The path with each {@code //} and {@code /./} made one separator, as the file system reads
     * it; null when it holds a {@code ..} component or a control character, which no such
     * rewriting may excuse.
     */
    private static String collapsed(String file) {
        if (file.contains("/../") || file.chars().anyMatch(c -> c < 0x20)) {
            return null;
        }
        return file.replaceAll("/(\\./)+", "/").replaceAll("/+", "/");
    }

    @Test
    void generatedHostileIdsAreRefusedAndTouchNothing() {
        int runs = 0;
        for (int i = 0; i < PER_COMMAND; i++) {
            String volid = hostileVolid();
            refused("path", "path", volid);
            refused("info", "info", volid);
            refused("free", "free", volid);
            refused("alloc", "alloc", "local", "100", hostileName(random.nextBoolean() ? ".raw" : ".qcow2"), "1M");
            String file = random.nextBoolean()
                    ? store.resolve("images/100") + "/" + hostileName(".raw")
                    : store + "/" + upToOutside() + "images/100/vm-100-disk-0.raw";
            String plain = collapsed(file);
            Outcome plainVolid = plain == null || plain.equals(file) ? null : run("volid", plain);
            if (plainVolid != null && plainVolid.exit == 0) {
                // a "/./" or "//" only, in a path that names a volume (perhaps an odd but legal name):
                // the same file, as the file system (and pve's abs_path) reads the path
                Outcome same = run("volid", file);
                assertThat(same.exit)
                        .as("volid %s (seed %d); stderr %s", VsmPrintable.of(file), SEED, same.err)
                        .isZero();
                assertThat(same.out)
                        .as("volid %s (seed %d)", VsmPrintable.of(file), SEED)
                        .isEqualTo(plainVolid.out);
            } else {
                refused("volid", "volid", file);
            }
            runs += 5;
        }
        System.out.printf(
                "HostileVolumeIdTest: %d hostile runs in-process (seed %d), all exit 2 with one line, nothing touched%n",
                runs, SEED);
    }

    @Test
    void oddButLegalNamesStayInsideTheStorage() throws Exception {
        int runs = 0;
        for (int i = 0; i < PER_COMMAND / 3; i++) {
            String name = "vm-100-" + oddButLegal() + oddButLegal() + "-" + i + ".raw";
            Map<String, String> outsideBefore = Tree.snapshot(outside);
            Outcome path = run("path", "local:100/" + name);
            assertThat(path.exit).as("path of %s", VsmPrintable.of(name)).isZero();
            Path resolved = Path.of(path.out.strip()).normalize();
            assertThat(resolved.startsWith(store.resolve("images/100")))
                    .as("%s inside the storage", resolved)
                    .isTrue();
            Outcome alloc = run("alloc", "local", "100", name, "1M");
            assertThat(alloc.exit)
                    .as("alloc of %s: %s", VsmPrintable.of(name), alloc.err)
                    .isZero();
            assertThat(resolved).exists();
            assertThat(run("free", "local:100/" + name).exit).isZero();
            assertThat(resolved).doesNotExist();
            assertThat(Tree.snapshot(outside)).isEqualTo(outsideBefore);
            runs += 3;
        }
        System.out.printf(
                "HostileVolumeIdTest: %d runs with odd but legal names (seed %d), all inside the storage%n",
                runs, SEED);
    }

    @Test
    void aSampleEndToEndThroughTheLauncher() {
        Vsm vsm = new Vsm(sandbox).env("VSM_CONFIG", config.toString());
        String[][] sample = {
            {"path", "local:100/../../../outside/canary.raw"},
            {"path", "local:" + outside.resolve("canary.raw")},
            {"info", "local:snippets/.."},
            {"free", "local:100/" + upToOutside() + "canary.raw"},
            {"free", "local:100/vm-100-disk-0.raw\u0001"},
            {"alloc", "local", "100", "vm-100-$(touch " + marker + ").raw", "1M"},
            {"alloc", "local", "100", "vm-100-disk-9\u0007.raw", "1M"},
            {"alloc", "local", "100", "x".repeat(300) + ".raw", "1M"},
            {"volid", store + "/images/100/../../../outside/images/100/vm-100-disk-0.raw"},
            {"path", "local:100/%2e%2e/%2e%2e/canary.raw"},
        };
        for (String[] args : sample) {
            Map<String, String> sandboxBefore = Tree.snapshot(sandbox);
            Map<String, String> outsideBefore = Tree.snapshot(outside);
            vsm.run(args).badInput("");
            assertThat(Tree.snapshot(sandbox)).isEqualTo(sandboxBefore);
            assertThat(Tree.snapshot(outside)).isEqualTo(outsideBefore);
        }
    }

    /**
     * {@code //} and {@code /./} in a host path name the same file, whether it exists or not yet
     * (pve's path_to_volume_id reads it through abs_path); a {@code ..} is taken only where the
     * file exists, since it is read without following links.
     */
    @Test
    void extraSeparatorsInAHostPathNameTheSameVolume() {
        Vsm vsm = new Vsm(sandbox).env("VSM_CONFIG", config.toString());
        for (String disk : new String[] {"vm-100-disk-0.raw", "vm-100-disk-7.raw"}) {
            for (String file : new String[] {store + "/images/100//./" + disk, store + "//images/./100/" + disk}) {
                assertThat(vsm.run("volid", file).ok().out().strip()).isEqualTo("local:100/" + disk);
            }
        }
        assertThat(vsm.run("volid", store + "/images/100/../100/vm-100-disk-0.raw")
                        .ok()
                        .out()
                        .strip())
                .isEqualTo("local:100/vm-100-disk-0.raw");
        vsm.run("volid", store + "/images/100/../100/vm-100-disk-7.raw").badInput("is not a volume of any storage");
    }

    /** Arguments shown in a failure message: control characters escaped, long ones cut. */
    static final class VsmPrintable {
        private VsmPrintable() {}

        static String of(String s) {
            return dev.vsm.spi.VolumeId.printable(s);
        }
    }
}
