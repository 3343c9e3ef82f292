package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.t.support.ScriptRun;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a new user trips over on dir storages, each reproduced through the real cli/vsm: a volume
 * no listing shows, another guest's name, a storage kept that cannot work, a misspelt
 * {@code $VSM_CONFIG}, a base renamed, progress shown only at the end, and the help.
 */
class NewUserTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;

    @BeforeEach
    void setUp() {
        vsm = new Vsm(sandbox);
        vsm.writeConfig("""
                storages:
                  local:
                    type: dir
                    path: %1$s/local
                  isos:
                    type: dir
                    path: %1$s/isos
                    content: [iso, backup]
                """.formatted(sandbox));
        vsm.run("status").ok(); // the storages' directories exist from here on
    }

    @AfterEach
    void release() {
        vsm.releaseImmutable();
    }

    private void refused(String message, String... args) {
        Map<String, String> before = Tree.snapshot(sandbox);
        vsm.run(args).badInput(message);
        assertThat(Tree.snapshot(sandbox))
                .as("vsm %s changed files", String.join(" ", args))
                .isEqualTo(before);
    }

    @Test
    void allocRefusesWhatNoListingWouldShow() throws IOException {
        Path disk = Files.write(sandbox.resolve("disk.raw"), new byte[1 << 20]);
        refused("storage 'isos' does not support content-type 'images'", "alloc", "isos", "100", "", "1M");
        refused(
                "storage 'isos' does not support content-type 'images'",
                "alloc",
                "isos",
                "100",
                "vm-100-disk-0.qcow2",
                "1M");
        refused(
                "illegal name 'vm-101-disk-0.raw' - should be 'vm-100-*'",
                "alloc",
                "local",
                "100",
                "vm-101-disk-0.raw",
                "1G");
        refused(
                "illegal name 'vm-7777-disk-0.qcow2' - should be 'vm-100-*'",
                "alloc",
                "local",
                "100",
                "vm-7777-disk-0.qcow2",
                "1M");
        // a base allocated writable, which clone would then trust: only create-base makes one
        refused(
                "illegal name 'base-100-disk-0.qcow2' - only create-base makes a base volume",
                "alloc",
                "local",
                "100",
                "base-100-disk-0.qcow2",
                "1M");
        refused(
                "illegal name 'base-100-disk-0.raw' - only create-base makes a base volume",
                "import",
                "local",
                "100",
                disk.toString(),
                "--name",
                "base-100-disk-0.raw");
        assertThat(vsm.run("alloc", "local", "100", "vm-100-disk-4.raw", "1M")
                        .ok()
                        .out())
                .isEqualTo("successfully created 'local:100/vm-100-disk-4.raw'\n");
        assertThat(vsm.run("list", "local", "--vmid", "100").ok().out()).contains("local:100/vm-100-disk-4.raw");
    }

    @Test
    void addWritesNothingWhenTheStorageCannotBeActivated() throws IOException {
        Path file = Files.writeString(sandbox.resolve("a-file"), "not a directory");
        Map<String, String> before = Tree.snapshot(sandbox);
        Vsm.Result r =
                vsm.run("add", "dir", "broken", "--path", file.resolve("sub").toString());
        assertThat(r.exit()).as("stderr: %s", r.err()).isEqualTo(1);
        assertThat(r.err())
                .startsWith("create storage failed: ")
                .contains(file.resolve("sub").toString())
                .hasLineCount(1);
        assertThat(Tree.snapshot(sandbox)).as("no config written").isEqualTo(before);

        vsm.run("add", "dir", "later", "--path", file.resolve("sub").toString(), "--disable", "1")
                .ok();
        assertThat(Files.readString(vsm.config()))
                .as("a disabled storage is not activated (as pve)")
                .contains("  later:\n");
        vsm.run("add", "dir", "fine", "--path", sandbox.resolve("fine").toString())
                .ok();
        assertThat(sandbox.resolve("fine/images")).isDirectory();
    }

    @Test
    void vsmConfigNamingAMissingFileIsAnErrorAsConfigIs() {
        Path missing = sandbox.resolve("etc/typo.yaml");
        Vsm.Result byEnv =
                new Vsm(sandbox).env("VSM_CONFIG", missing.toString()).run("status");
        Vsm.Result byOption = vsm.run("--config", missing.toString(), "status");
        byEnv.badInput("config file '" + missing + "' does not exist");
        assertThat(byEnv.err()).isEqualTo(byOption.err());
        assertThat(byEnv.exit()).isEqualTo(byOption.exit());
        assertThat(missing).doesNotExist();
    }

    @Test
    void aBaseIsNotRenamedAndNothingIsLeftBehind() {
        vsm.run("alloc", "local", "100", "", "1M", "--format", "qcow2").ok();
        vsm.run("create-base", "local:100/vm-100-disk-0.qcow2").ok();
        refused(
                "base volume '100/base-100-disk-0.qcow2' cannot be renamed",
                "rename",
                "local:100/base-100-disk-0.qcow2",
                "101");
        assertThat(sandbox.resolve("local/images/101")).doesNotExist();
        assertThat(vsm.run("clone", "local:100/base-100-disk-0.qcow2", "101")
                        .ok()
                        .out())
                .contains("101/vm-101-disk-0.qcow2");
    }

    @Test
    void importAndCopyShowProgressAsQemuImgGoes() throws Exception {
        Path image = sandbox.resolve("source.raw");
        try (var f = new java.io.RandomAccessFile(image.toFile(), "rw")) {
            f.setLength(64L << 20);
            byte[] data = new byte[1 << 20];
            new java.util.Random(1).nextBytes(data);
            for (int mib = 0; mib < 64; mib += 4) {
                f.seek((long) mib << 20);
                f.write(data);
            }
        }
        Vsm.Result imported = vsm.run("import", "local", "100", image.toString(), "--format", "qcow2")
                .ok();
        // off a terminal a line for each further tenth qemu-img reports (it reports in steps of its own)
        assertThat(imported.lines().stream()
                        .filter(l -> l.matches("convert source\\.raw: [1-9]\\d% \\(\\d+ of 67108864 bytes\\).*")))
                .as(imported.out())
                .hasSizeGreaterThanOrEqualTo(5);
        Vsm.Result copied = vsm.run("copy", "local:100/vm-100-disk-0.qcow2", "local", "--format", "raw")
                .ok();
        assertThat(copied.lines())
                .as(copied.out())
                .anyMatch(l -> l.matches("convert vm-100-disk-0\\.qcow2: [1-9]\\d% \\(.*"));

        Vsm.Result onTerminal =
                ScriptRun.underTerminal(vsm, envLine() + " " + Vsm.LAUNCHER + " import local 100 " + image);
        assertThat(onTerminal.exit()).as(onTerminal.out()).isZero();
        long redraws = onTerminal.out().chars().filter(c -> c == '\r').count();
        assertThat(redraws)
                .as("the bar is redrawn while qemu-img works, not drawn once at 100%%: %s", onTerminal.out())
                .isGreaterThan(1);
        assertThat(onTerminal.out()).containsPattern("\\[#*\\.+\\] +\\d{1,2}% ");
    }

    private String envLine() {
        StringBuilder line = new StringBuilder("env");
        vsm.environment()
                .forEach((k, v) -> line.append(' ')
                        .append(k)
                        .append("='")
                        .append(v.replace("'", "'\\''"))
                        .append('\''));
        return line.toString();
    }

    @Test
    void setDryRunShowsEachChange() throws IOException {
        String config = Files.readString(vsm.config());
        Vsm.Result dry = vsm.run("set", "isos", "--content", "iso", "--disable", "1", "--dry-run")
                .ok();
        assertThat(dry.lines())
                .containsExactly(
                        "+ isos: content iso,backup -> iso",
                        "+ isos: disable (unset) -> true",
                        "+ write " + vsm.config());
        assertThat(Files.readString(vsm.config())).isEqualTo(config);
        assertThat(vsm.run("set", "isos", "--delete", "content", "--dry-run")
                        .ok()
                        .lines())
                .first()
                .isEqualTo("+ isos: content iso,backup -> (unset)");
        assertThat(vsm.run("set", "isos", "--content", "iso,backup", "--dry-run")
                        .ok()
                        .lines())
                .as("no change, nothing to write")
                .isEmpty();
    }

    @Test
    void volidTakesThePathThatPathPrinted() {
        String path =
                vsm.run("path", "local:100/vm-100-disk-9.qcow2").ok().out().strip();
        assertThat(Path.of(path)).doesNotExist();
        assertThat(vsm.run("volid", path).ok().out()).isEqualTo("local:100/vm-100-disk-9.qcow2\n");
        refused(
                "is not a volume of any storage",
                "volid",
                sandbox.resolve("local/images/100/not-an-image").toString());
    }
}
