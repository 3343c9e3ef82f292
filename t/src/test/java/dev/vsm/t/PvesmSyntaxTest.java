package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * pvesm's own syntax, as scripts that drive Proxmox hosts use it, through a {@code pvesm} symlink
 * to the real cli/vsm: options with one dash as well as two, booleans with a value, pvesm's
 * columns split with awk, and status's filters as pve applies them.
 */
class PvesmSyntaxTest {
    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path bin;

    @BeforeEach
    void setUp() throws IOException {
        vsm = new Vsm(sandbox).processes().env("VSM_NODE", "here");
        vsm.writeConfig("""
                storages:
                  local:
                    type: dir
                    path: %1$s/local
                    content: [images, iso]
                  isos:
                    type: dir
                    path: %1$s/isos
                    content: [iso]
                  off:
                    type: dir
                    path: %1$s/off
                    content: [images]
                    disable: true
                  both:
                    type: dir
                    path: %1$s/both
                    content: [images]
                    shared: true
                    nodes: [here, there]
                    format: qcow2
                  elsewhere:
                    type: dir
                    path: %1$s/elsewhere
                    content: [images]
                    shared: true
                    nodes: [there]
                """.formatted(sandbox));
        bin = Files.createDirectories(sandbox.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("pvesm"), Vsm.LAUNCHER);
    }

    /** A shell line as a script runs it, with {@code pvesm} on the PATH. */
    private Vsm.Result sh(String line) {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "set -o pipefail; " + line).directory(sandbox.toFile());
        pb.environment().putAll(vsm.environment());
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        try {
            Path out = Files.createTempFile(sandbox, ".sh-out", "");
            Path err = Files.createTempFile(sandbox, ".sh-err", "");
            Process p =
                    pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("'" + line + "' did not finish in 120 s");
            }
            Vsm.Result r = new Vsm.Result(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
            Files.delete(out);
            Files.delete(err);
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void scriptsSplitStatusWithAwk() {
        assertThat(sh("pvesm status -content images -enabled 1 | awk 'NR>1 {print $1}'")
                        .ok()
                        .out())
                .as("a content filter leaves disabled storages out (off; elsewhere is not for this node)")
                .isEqualTo("both\nlocal\n");
        assertThat(sh("pvesm status -content iso,images | awk 'NR>1 {print $1}'")
                        .ok()
                        .out())
                .isEqualTo("both\nisos\nlocal\n");
        assertThat(sh("pvesm status --content=rootdir | awk 'NR>1 {print $1}'")
                        .ok()
                        .out())
                .isEmpty();
        assertThat(sh("pvesm status -enabled | awk 'NR>1 {print $1}'").ok().out())
                .as("--enabled goes by 'disable' only, as pve")
                .isEqualTo("both\nelsewhere\nisos\nlocal\n");
        assertThat(sh("pvesm status -enabled 0 | awk 'NR>1 {print $1}'").ok().out())
                .isEqualTo("both\nelsewhere\nisos\nlocal\noff\n");

        Vsm.Result all = sh("pvesm status").ok();
        // pvesm.pm's print_status: the longest storage id + 1, then fixed columns
        String row = "%-10s %10s %10s %15s %15s %15s %8s";
        assertThat(all.lines().get(0))
                .isEqualTo(String.format(
                        row, "Name", "Type", "Status", "Total (KiB)", "Used (KiB)", "Available (KiB)", "%"));
        assertThat(all.lines())
                .anySatisfy(l -> assertThat(l).isEqualTo(String.format(row, "off", "dir", "disabled", 0, 0, 0, "N/A")));
        assertThat(all.lines())
                .anySatisfy(l -> assertThat(l).matches("local {13}dir {5}active +\\d+ +\\d+ +\\d+ +\\d+\\.\\d\\d%"));
        assertThat(all.lines().get(1)).startsWith("both ");
    }

    @Test
    void statusFiltersAsPveAppliesThem() {
        vsm.run("status").ok(); // activates the storages (their directories)
        Map<String, String> before = Tree.snapshot(sandbox);
        vsm.run("status", "-storage", "isos", "-content", "images").badInput("storage: No such storage.");
        vsm.run("status", "--storage", "off", "--content", "images").badInput("storage: No such storage.");
        vsm.run("status", "-content", "images,bogus").badInput("content: invalid content type 'bogus'");
        vsm.run("status", "-target", "no such node").badInput("target: invalid format");
        assertThat(vsm.run("status", "-storage", "local", "-content", "images")
                        .ok()
                        .lines())
                .hasSize(2);

        assertThat(sh("pvesm status -target there | awk 'NR>1 {print $1}'").ok().out())
                .as("shared storages on this node and the target")
                .isEqualTo("both\n");
        assertThat(sh("pvesm status -target here | awk 'NR>1 {print $1}'").ok().out())
                .as("the target is this node: no filter")
                .isEqualTo(sh("pvesm status | awk 'NR>1 {print $1}'").out());

        JsonNode rows =
                vsm.run("status", "-format", "1", "-output-format", "json").ok().json();
        for (JsonNode r : rows) {
            if (r.get("enabled").asInt() == 1) {
                assertThat(r.get("formats").get("supported"))
                        .as(r.get("storage").asText())
                        .isNotEmpty();
                assertThat(r.get("formats").get("default").asText())
                        .isEqualTo(r.get("storage").asText().equals("both") ? "qcow2" : "raw");
                assertThat(r.get("format").get(1).asText())
                        .isEqualTo(r.get("formats").get("default").asText());
            } else {
                assertThat(r.has("formats")).as(r.get("storage").asText()).isFalse();
            }
        }
        assertThat(vsm.run("status", "--output-format", "json")
                        .ok()
                        .json()
                        .get(0)
                        .has("formats"))
                .isFalse();
        assertThat(Tree.snapshot(sandbox)).as("status changes nothing").isEqualTo(before);
    }

    @Test
    void everyOptionTakesOneDashOrTwo() throws IOException {
        Vsm.Result alloc = sh("pvesm alloc local 100 '' 1M -format qcow2").ok();
        assertThat(alloc.out()).isEqualTo("successfully created 'local:100/vm-100-disk-0.qcow2'\n");
        sh("pvesm alloc local 100 '' 1M -format=raw -preallocation off").ok();
        assertThat(sh("pvesm alloc local 100 '' 1M -dry-run 1").ok().out())
                .contains("would create 'local:100/vm-100-disk-2.raw'");
        assertThat(sh("pvesm alloc local 100 '' 1M -dry-run 0").ok().out())
                .isEqualTo("successfully created 'local:100/vm-100-disk-2.raw'\n");

        // pvesm.pm's print_content: the longest volume id, Format 7, Type 9, the longest size, VMID
        String row = "%-29s %-7s %-9s %7s %s";
        assertThat(sh("pvesm list local -content images -vmid 100").ok().lines())
                .containsExactly(
                        String.format(row, "Volid", "Format", "Type", "Size", "VMID"),
                        String.format(row, "local:100/vm-100-disk-0.qcow2", "qcow2", "images", 1048576, 100),
                        String.format(row, "local:100/vm-100-disk-1.raw", "raw", "images", 1048576, 100),
                        String.format(row, "local:100/vm-100-disk-2.raw", "raw", "images", 1048576, 100));
        assertThat(sh("pvesm list local -content iso | awk 'NR>1'").ok().out()).isEmpty();

        // global options anywhere, before the command too
        assertThat(sh("pvesm -output-format json list local -vmid 100").ok().json())
                .hasSize(3);
        assertThat(vsm.run("--output-format", "json", "status", "-storage", "local")
                        .ok()
                        .json()
                        .get(0)
                        .get("storage")
                        .asText())
                .isEqualTo("local");
        assertThat(vsm.run("-config", vsm.config().toString(), "list", "local", "-output-format=yaml")
                        .ok()
                        .out())
                .contains("volid: local:100/vm-100-disk-0.qcow2");

        // short options, sizes and '-' keep their meaning
        assertThat(sh("pvesm status -h").ok().out()).startsWith("Usage: pvesm status");
        sh("pvesm resize local:100/vm-100-disk-1.raw +1M").ok();
        assertThat(Files.size(sandbox.resolve("local/images/100/vm-100-disk-1.raw")))
                .isEqualTo(2L << 20);
        Vsm.Result stream = sh("pvesm export local:100/vm-100-disk-1.raw raw+size - -q | wc -c")
                .ok();
        assertThat(Long.parseLong(stream.out().strip())).isGreaterThan(2L << 20);
        assertThat(sh("pvesm free local:100/vm-100-disk-2.raw -delay 5 -q").ok().out())
                .isEqualTo("Removed volume 'local:100/vm-100-disk-2.raw'\n");

        // add and set take their properties with one dash
        sh("pvesm add dir extra -path " + sandbox.resolve("extra") + " -content iso,backup -disable 1")
                .ok();
        assertThat(Files.readString(vsm.config())).contains("  extra:\n    type: dir\n");
        sh("pvesm set extra -disable 0 -delete content").ok();
        assertThat(vsm.run("status", "-storage", "extra", "-output-format", "json")
                        .ok()
                        .json()
                        .get(0)
                        .get("enabled")
                        .asInt())
                .isEqualTo(1);

        Map<String, String> before = Tree.snapshot(sandbox);
        Vsm.Result bad = sh("pvesm free local:100/vm-100-disk-1.raw -delay 31");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err().strip()).isEqualTo("delay: value must be between 1 and 30, got 31");
        Vsm.Result unknown = sh("pvesm list local -bogus 1");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err())
                .contains("'-bogus'", "see 'pvesm list --help'")
                .hasLineCount(1);
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
    }

    @Test
    void helpAndThePvesmName() {
        Vsm.Result help = vsm.run("help", "list").ok();
        assertThat(help.out()).startsWith("Usage: vsm list").doesNotContain("Volid");
        assertThat(vsm.run("help", "list").out())
                .isEqualTo(vsm.run("list", "--help").out());
        assertThat(vsm.run("help").ok().out()).startsWith("Usage: vsm ").contains("  alloc ");
        assertThat(vsm.run("help", "scan", "lvm").ok().out())
                .startsWith("Usage: vsm scan lvm")
                .isEqualTo(vsm.run("scan", "lvm", "--help").ok().out());
        assertThat(vsm.run("help", "lvmthinscan").ok().out())
                .isEqualTo(vsm.run("scan", "lvmthin", "--help").ok().out());
        Vsm.Result nfs = vsm.run("nfsscan", "server");
        assertThat(nfs.exit()).isEqualTo(2);
        assertThat(nfs.err()).contains("'nfs'").hasLineCount(1);
        assertThat(vsm.run("help", "add", "dir").ok().out())
                .isEqualTo(vsm.run("add", "dir", "--help").ok().out());
        assertThat(sh("pvesm help alloc").ok().out()).startsWith("Usage: pvesm alloc");
        assertThat(vsm.run("add", "lvm", "--help").ok().out())
                .contains("Properties of lvm:", "--vgname", "--saferemove");
        assertThat(vsm.run("help", "add", "dir").ok().out())
                .contains("Properties of dir:", "--path")
                .doesNotContain("--vgname");
        assertThat(vsm.run("add", "nosuchtype", "-h").ok().out()).contains("No storage type 'nosuchtype' is loaded");
    }

    /**
     * pvesm's command shortcuts, as its CLI handler takes them: a start of a command's name that
     * only one command has; a shared one is refused naming the candidates, and changes nothing.
     */
    @Test
    void commandsTakeTheirUnambiguousShortcuts() {
        assertThat(sh("pvesm st | awk 'NR>1 {print $1}'").ok().out())
                .isEqualTo(sh("pvesm status | awk 'NR>1 {print $1}'").ok().out());
        sh("pvesm al local 100 '' 1M -format raw").ok();
        assertThat(vsm.run("l", "local").ok().out())
                .isEqualTo(vsm.run("list", "local").ok().out())
                .contains("local:100/vm-100-disk-0.raw");
        assertThat(vsm.run("--output-format", "json", "pa", "local:100/vm-100-disk-0.raw")
                        .ok()
                        .json()
                        .get("path")
                        .asText())
                .isEqualTo(sandbox.resolve("local/images/100/vm-100-disk-0.raw").toString());
        assertThat(vsm.run("sc", "lvmt", "--help").ok().out())
                .as("a command's own commands too")
                .isEqualTo(vsm.run("scan", "lvmthin", "--help").ok().out());
        assertThat(vsm.run("he", "fr").ok().out())
                .isEqualTo(vsm.run("free", "--help").ok().out());

        Map<String, String> before = Tree.snapshot(sandbox);
        Vsm.Result ambiguous = sh("pvesm s");
        assertThat(ambiguous.exit()).isEqualTo(2);
        assertThat(ambiguous.err())
                .isEqualTo("command 's' is ambiguous: scan, serve, set, snapshot, snapshot-delete, status\n");
        vsm.run("re", "local:100/vm-100-disk-0.raw", "+1M")
                .badInput("command 're' is ambiguous: remove, rename, rename-snapshot, resize");
        vsm.run("scan", "l").badInput("command 'l' is ambiguous: lvm, lvmthin");
        vsm.run("imp", "local", "100", "/nonexistent")
                .badInput("command 'imp' is ambiguous: import, import-metadata, import-stream");
        assertThat(Tree.snapshot(sandbox)).as("nothing changed").isEqualTo(before);
    }
}
