package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.HostileFragments;
import dev.vsm.t.support.ThinSandbox;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.HostTools;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile volume ids and names against an {@code lvm} and an {@code lvmthin} storage on a real
 * loop-device VG (for the LVM types): a seeded corpus of names holding a path
 * ({@code ../}, {@code /}, an absolute path), a control character, white space, shell
 * metacharacters, unicode look-alikes or percent-encodings (outside lvm2's name alphabet), or more
 * than lvm2's 127 characters, against {@code path}, {@code info}, {@code free},
 * {@code alloc <name>} and {@code volid /dev/<vg>/<name>}.
 *
 * <p>Each run goes through {@code cli/vsm} (lvm2 must see the test group's {@code LVM_SYSTEM_DIR},
 * which an in-process run cannot give it) under {@code strace -f -e trace=execve}, which records
 * every program vsm starts with its exact argv. Each must exit 2 with one line on stderr, start
 * no lvm2 command that changes anything ({@code lvcreate}, {@code lvremove}, {@code lvrename},
 * {@code lvchange}, {@code lvextend}, {@code vgchange}) — for {@code alloc}, whose name the plugin
 * checks once the storage is active, but the thin pool's activation ({@code lvchange -ay -K
 * <vg>/data}); a volume id is parsed before its storage is activated — hand lvm2 no argument holding the hostile
 * name or anything but printable ASCII, and leave the sandbox as it was; at the end the group's
 * LVs are as they were and no shell ran (the marker file the metacharacters would touch is absent).
 * Seed: {@code -Dvsm.hostile.seed}; cases per storage: {@code -Dvsm.hostile.lvm.cases} (default 6: 60 runs, a new seed each time; raise it to search longer).
 */
@RootTest
class HostileLvmIdTest {
    static final long SEED = Long.getLong("vsm.hostile.seed", System.nanoTime());
    static final int PER_STORAGE = Integer.getInteger("vsm.hostile.lvm.cases", 6);
    private static final Set<String> LVM2_TOOLS = Set.of(
            "lvm",
            "lvs",
            "vgs",
            "pvs",
            "lvcreate",
            "lvremove",
            "lvrename",
            "lvchange",
            "lvextend",
            "lvresize",
            "vgscan",
            "vgchange");
    private static final Set<String> CHANGING =
            Set.of("lvcreate", "lvremove", "lvrename", "lvchange", "lvextend", "lvresize", "vgchange");
    private static final Pattern EXECVE =
            Pattern.compile("^\\d+ +execve\\(\"((?:\\\\x[0-9a-f]{2})*)\", \\[(.*?)\\](?:, .*)?\\) += 0$");
    private static final Pattern HEX_STRING = Pattern.compile("\"((?:\\\\x[0-9a-f]{2})*)\"");

    @RegisterExtension
    final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(128);

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path marker;
    private Random random;
    private HostileFragments fragments;

    @BeforeEach
    void setUp() {
        HostTools.require("strace records the commands vsm starts", "/usr/bin/strace");
        ThinSandbox.writeLayout(vg);
        marker = sandbox.resolve("PWNED");
        vsm = new Vsm(sandbox).env(vg.environment()).writeConfig("""
                storages:
                  san:
                    type: lvm
                    vgname: %s
                  thin:
                    type: lvmthin
                    vgname: %s
                    thinpool: data
                """.formatted(vg.name(), vg.name()));
        random = new Random(SEED);
        fragments = new HostileFragments(random, marker);
    }

    @AfterEach
    void noShell() {
        assertThat(marker).as("a metacharacter reached a shell (seed %d)", SEED).doesNotExist();
    }

    // --- the generator

    /** One fragment no LV name may hold. */
    private String poison() {
        return switch (random.nextInt(9)) {
            case 0 -> "../";
            case 1 -> "/";
            case 2 -> "../../../../etc/passwd";
            case 3 ->
                fragments
                        .control()
                        .replace(
                                '\0', '\u0001'); // no NUL: no argv can hold one (HostileVolumeIdTest has it in-process)
            case 4 -> random.nextBoolean() ? " " : "\t--yes";
            case 5 -> "x".repeat(128 + random.nextInt(4000));
            case 6 -> fragments.lookAlike();
            case 7 -> "%2e%2e%2f";
            default -> fragments.shell();
        };
    }

    /** {@code vm-100-} (so that only the poison makes it bad), decorated, with a poison fragment somewhere after the prefix. */
    private String hostileName() {
        StringBuilder b = new StringBuilder("vm-100-");
        int count = 1 + random.nextInt(3);
        for (int i = 0; i < count; i++) {
            switch (random.nextInt(3)) {
                case 0 -> b.append(fragments.lookAlike());
                case 1 -> b.append(fragments.shell());
                default -> b.append("disk-").append(random.nextInt(3));
            }
        }
        b.insert("vm-100-".length() + random.nextInt(b.length() - "vm-100-".length() + 1), poison());
        return random.nextInt(6) == 0 ? b + ".qcow2" : b.toString();
    }

    // --- the properties

    @Test
    void generatedHostileIdsNeverReachLvm2() throws IOException {
        // the trace does see lvm2: a good name reaches lvcreate
        Traced control = traced("alloc", "san", "100", "vm-100-control", "4M");
        assertThat(control.exit()).as(control.err()).isZero();
        assertThat(control.lvm2())
                .anySatisfy(
                        argv -> assertThat(argv).startsWith("/sbin/lvcreate").contains("vm-100-control"));
        vsm.run("free", "san:vm-100-control").ok();
        // a trailing slash leads only to a directory, never to an LV (seed 1455442874083 at 60 cases)
        refused("vm-100-disk-0/", "volid", "/dev/" + vg.name() + "/vm-100-disk-0/");

        String lvsBefore = lvmState();
        int runs = 0;
        for (String storage : List.of("san", "thin")) {
            for (int i = 0; i < PER_STORAGE; i++) {
                String name = hostileName();
                refused(name, "path", storage + ":" + name);
                refused(name, "info", storage + ":" + name);
                refused(name, "free", storage + ":" + name);
                refused(name, "alloc", storage, "100", name, "4M");
                refused(name, "volid", "/dev/" + vg.name() + "/" + name);
                runs += 5;
            }
        }
        assertThat(lvmState()).as("the volume group's LVs (seed %d)", SEED).isEqualTo(lvsBefore);
        System.out.printf(
                "HostileLvmIdTest: %d hostile runs through cli/vsm on lvm and lvmthin (seed %d): all exit 2 with one line, "
                        + "lvm2 never saw a hostile name%n",
                runs, SEED);
    }

    private String lvmState() {
        return vg.lvm(
                "lvs",
                "-a",
                "--noheadings",
                "--units",
                "b",
                "-o",
                "lv_name,lv_size,lv_attr,pool_lv,origin,lv_tags",
                vg.name());
    }

    /** Exit 2, one line, the sandbox unchanged, no changing lvm2 command, no lvm2 argument holding the name or anything unprintable. */
    private void refused(String name, String... args) throws IOException {
        Map<String, String> before = Tree.snapshot(sandbox);
        String shown = dev.vsm.spi.VolumeId.printable(String.join(" ", args));
        Traced t = traced(args);
        assertThat(t.exit())
                .as("exit of vsm %s (seed %d); stderr %s", shown, SEED, t.err())
                .isEqualTo(2);
        assertThat(t.err().strip())
                .as("stderr of vsm %s (seed %d)", shown, SEED)
                .isNotEmpty()
                .doesNotContain("\n")
                .doesNotContain("\tat ");
        assertThat(Tree.snapshot(sandbox))
                .as("vsm %s changed the sandbox (seed %d)", shown, SEED)
                .isEqualTo(before);
        for (List<String> argv : t.lvm2()) {
            String tool = Path.of(argv.get(0)).getFileName().toString();
            if (!(args[0].equals("alloc")
                    && argv.equals(List.of("/sbin/lvchange", "-ay", "-K", vg.name() + "/data")))) {
                assertThat(CHANGING)
                        .as("vsm %s ran %s (seed %d)", shown, argv, SEED)
                        .doesNotContain(tool);
            }
            for (String arg : argv) {
                assertThat(arg)
                        .as("an argument vsm %s gave lvm2 (seed %d): %s", shown, SEED, argv)
                        .matches("[\\x21-\\x7e]*")
                        .doesNotContain(name);
            }
        }
    }

    /** What one traced run did: its exit, stderr and the argv of every lvm2 program it started. */
    private record Traced(int exit, String err, List<List<String>> lvm2) {}

    private Traced traced(String... args) throws IOException {
        Path log = sandbox.resolve(".vsm-strace-" + System.nanoTime());
        List<String> argv = new ArrayList<>(List.of(
                "/usr/bin/strace",
                "-f",
                "-qq",
                "--seccomp-bpf",
                "-xx",
                "-s",
                "65536",
                "-e",
                "trace=execve",
                "-o",
                log.toString(),
                Vsm.LAUNCHER.toString()));
        argv.addAll(List.of(args));
        HostTools.Result r = HostTools.run(vsm.environment(), argv.toArray(String[]::new));
        assertThat(log)
                .as("strace's log; strace ended %d: %s", r.exit(), r.err())
                .exists();
        List<List<String>> lvm2 = new ArrayList<>();
        for (String line : Files.readAllLines(log, StandardCharsets.ISO_8859_1)) {
            Matcher m = EXECVE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String program = Path.of(unhex(m.group(1))).getFileName().toString();
            if (LVM2_TOOLS.contains(program)) {
                List<String> command = new ArrayList<>();
                Matcher s = HEX_STRING.matcher(m.group(2));
                while (s.find()) {
                    command.add(unhex(s.group(1)));
                }
                command.set(0, unhex(m.group(1)));
                lvm2.add(command);
            }
        }
        Files.delete(log);
        return new Traced(r.exit(), r.err(), lvm2);
    }

    /** strace -xx prints every byte of a string as {@code \xHH}. */
    private static String unhex(String escaped) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i + 4 <= escaped.length(); i += 4) {
            bytes.write(Integer.parseInt(escaped.substring(i + 2, i + 4), 16));
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
