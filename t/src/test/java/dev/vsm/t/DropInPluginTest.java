package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.Tree;
import dev.vsm.t.support.Vsm;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example drop-in plugin (plugins/examples/quota-dir) through the real cli/vsm: its jar
 * copied into the sandbox's plugin directory, a storage of its type added, disks allocated,
 * listed and freed; and what happens when the jar is broken or missing.
 */
class DropInPluginTest {
    static final Path EXAMPLE_JAR = Path.of(System.getProperty(
            "vsm.example.plugin",
            Vsm.HOME.resolve("plugins/examples/quota-dir/target/quota-dir.jar").toString()));

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path plugins;
    private Path store;

    @BeforeEach
    void setUp() throws IOException {
        assertThat(EXAMPLE_JAR)
                .as("the example plugin is built before the end-to-end tests")
                .isRegularFile();
        vsm = new Vsm(sandbox);
        plugins = sandbox.resolve("plugins");
        store = sandbox.resolve("qd");
        Files.copy(EXAMPLE_JAR, plugins.resolve("quota-dir.jar"));
    }

    @Test
    void addAllocListAndFreeThroughTheDropInPlugin() throws IOException {
        JsonNode listed = vsm.run("plugins", "--output-format", "json").ok().json();
        assertThat(listed)
                .filteredOn(e -> !e.get("source").asText().equals("built-in"))
                .hasSize(1);
        assertThat(bySource(listed, "built-in").get("type").asText()).isEqualTo("dir");
        JsonNode quota = bySource(listed, plugins.resolve("quota-dir.jar").toString());
        assertThat(quota.get("type").asText()).isEqualTo("quota-dir");
        assertThat(quota.get("class").asText()).isEqualTo("dev.vsm.example.quotadir.QuotaDirPlugin");
        assertThat(quota.get("source").asText())
                .isEqualTo(plugins.resolve("quota-dir.jar").toString());
        assertThat(quota.get("api").asInt())
                .isEqualTo(vsm.run("apiinfo", "--output-format", "json")
                        .ok()
                        .json()
                        .get("apiver")
                        .asInt());
        assertThat(quota.get("status").asText()).isEqualTo("loaded");

        vsm.run("add", "quota-dir", "qd", "--path", store.toString(), "--vm-quota", "100M")
                .ok();
        assertThat(vsm.run("alloc", "qd", "100", "", "60M").ok().out())
                .isEqualTo("successfully created 'qd:100/vm-100-disk-0.qcow2'\n");
        Path disk = store.resolve("images/100/vm-100-disk-0.qcow2");
        assertThat(QemuImg.info(disk).get("virtual-size").asLong()).isEqualTo(60L << 20);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(disk)))
                .as("not readable by other users")
                .isEqualTo("rw-r-----");

        Map<String, String> before = Tree.snapshot(sandbox);
        vsm.run("alloc", "qd", "100", "", "50M", "--format", "raw")
                .badInput(
                        "storage 'qd': VM 100 would use 110 MiB of its 100 MiB quota (60 MiB in 1 other disk(s) + 50 MiB)"
                                + " - free a disk of VM 100, or raise the quota with 'vsm set qd --vm-quota <size>'");
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);
        String dryRun =
                vsm.run("alloc", "qd", "101", "", "10M", "--dry-run").ok().out();
        assertThat(dryRun).contains("+ qemu-img create");
        assertThat(Tree.snapshot(sandbox)).isEqualTo(before);

        vsm.run("alloc", "qd", "101", "", "100M", "--format", "raw").ok();
        assertThat(PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(store.resolve("images/101/vm-101-disk-0.raw"))))
                .isEqualTo("rw-r-----");
        JsonNode list = vsm.run("list", "qd", "--output-format", "json").ok().json();
        assertThat(list)
                .extracting(v -> v.get("volid").asText())
                .containsExactly("qd:100/vm-100-disk-0.qcow2", "qd:101/vm-101-disk-0.raw");
        assertThat(list.get(0).get("size").asLong()).isEqualTo(60L << 20);
        assertThat(vsm.run("status", "--storage", "qd", "--output-format", "json")
                        .ok()
                        .json()
                        .get(0)
                        .get("active")
                        .asInt())
                .isEqualTo(1);

        vsm.run("free", "qd:100/vm-100-disk-0.qcow2").ok();
        assertThat(disk).doesNotExist();
        vsm.run("alloc", "qd", "100", "", "100M").ok();
        assertThat(vsm.run("list", "qd", "--vmid", "100").ok().out()).contains("qd:100/vm-100-disk-0.qcow2");
    }

    @Test
    void theExampleIsNotOnTheCommandLinesClassPath() throws IOException {
        Files.delete(plugins.resolve("quota-dir.jar"));
        vsm.run("add", "quota-dir", "qd", "--path", store.toString(), "--vm-quota", "1G")
                .badInput("unsupported type 'quota-dir'");
        try (Stream<Path> lib = Files.list(Vsm.HOME.resolve("cli/target/lib"))) {
            assertThat(lib.map(p -> p.getFileName().toString())).noneMatch(name -> name.contains("example"));
        }
    }

    @Test
    void aRefusedJarLeavesTheOtherPluginsWorkingAndItsStoragesUntouched() throws IOException {
        vsm.run("add", "quota-dir", "qd", "--path", store.toString(), "--vm-quota", "1G")
                .ok();
        vsm.run("alloc", "qd", "100", "", "1M").ok();
        String qdSection = section(Files.readString(vsm.config()), "qd");
        withoutServiceEntry(EXAMPLE_JAR, plugins.resolve("quota-dir.jar"));

        Vsm.Result status = vsm.run("status").ok();
        assertThat(status.out()).contains("local").doesNotContain("qd");
        String jar = plugins.resolve("quota-dir.jar").toString();
        assertThat(status.err().lines().filter(l -> l.contains(jar)))
                .singleElement()
                .asString()
                .isEqualTo(
                        "warning: storage plugin " + jar + " not loaded: no storage plugin in it (no META-INF/services/"
                                + "dev.vsm.spi.StoragePlugin entry) - add that file naming the class that implements"
                                + " dev.vsm.spi.StoragePlugin, or remove the jar");
        assertThat(status.err()).contains("storage 'qd': type 'quota-dir' is not loaded - section kept unchanged");

        JsonNode refused =
                bySource(vsm.run("plugins", "--output-format", "json").ok().json(), jar);
        assertThat(refused.get("status").asText()).isEqualTo("refused");
        assertThat(refused.get("reason").asText()).startsWith("no storage plugin in it");
        assertThat(vsm.run("plugins").ok().out()).contains(jar + "  refused: no storage plugin in it");

        Vsm.Result alloc = vsm.run("alloc", "qd", "100", "", "1M");
        assertThat(alloc.exit()).isEqualTo(2);
        assertThat(alloc.err().lines())
                .as("the two warnings, then the error")
                .hasSize(3)
                .last()
                .isEqualTo("storage 'qd' has type 'quota-dir', which is not loaded (see 'vsm plugins')");
        vsm.run("add", "dir", "other", "--path", sandbox.resolve("other").toString())
                .ok();
        vsm.run("alloc", "other", "100", "", "1M").ok();
        vsm.run("set", "local", "--disable", "1").ok();
        assertThat(section(Files.readString(vsm.config()), "qd")).isEqualTo(qdSection);

        Files.copy(EXAMPLE_JAR, plugins.resolve("quota-dir.jar"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Vsm.Result list = vsm.run("list", "qd").ok();
        assertThat(list.out()).contains("qd:100/vm-100-disk-0.qcow2");
        assertThat(list.err()).isEmpty();
    }

    @Test
    void aSubdirectoryOfJarsIsOnePlugin() throws IOException {
        Files.createDirectories(plugins.resolve("quota-dir"));
        Files.move(plugins.resolve("quota-dir.jar"), plugins.resolve("quota-dir/quota-dir.jar"));
        JsonNode entry = bySource(
                vsm.run("plugins", "--output-format", "json").ok().json(),
                plugins.resolve("quota-dir").toString());
        assertThat(entry.get("type").asText()).isEqualTo("quota-dir");
        assertThat(entry.get("status").asText()).isEqualTo("loaded");
    }

    @Test
    void thePluginDirectoryFromTheOptionTheEnvironmentAndTheConfiguration() throws IOException {
        Path elsewhere = Files.createDirectories(sandbox.resolve("elsewhere"));
        Files.move(plugins.resolve("quota-dir.jar"), elsewhere.resolve("quota-dir.jar"));
        assertThat(vsm.run("plugins").ok().out()).doesNotContain("quota-dir");
        assertThat(vsm.run("plugins", "--plugin-dir", elsewhere.toString()).ok().out())
                .contains("quota-dir");

        vsm.env("VSM_PLUGIN_DIR", "");
        vsm.writeConfig("plugin-dir: ../elsewhere\nstorages: {}\n");
        assertThat(vsm.run("plugins").ok().out())
                .contains(elsewhere.resolve("quota-dir.jar").toString());

        Vsm.Result missing = vsm.run(
                        "plugins", "--plugin-dir", sandbox.resolve("nope").toString())
                .ok();
        assertThat(missing.out()).doesNotContain("quota-dir");
        assertThat(missing.err())
                .isEqualTo("warning: plugin directory " + sandbox.resolve("nope")
                        + " (--plugin-dir) does not exist - no drop-in plugins loaded; create it or fix the path\n");
        assertThat(vsm.run("status", "--plugin-dir", sandbox.resolve("nope").toString())
                        .ok()
                        .err())
                .as("built-in types only: the plugin directory is not even looked at")
                .isEmpty();
    }

    /** The first entry of {@code vsm plugins --output-format json} from a source. */
    private static JsonNode bySource(JsonNode plugins, String source) {
        for (JsonNode e : plugins) {
            if (e.get("source").asText().equals(source)) {
                return e;
            }
        }
        throw new AssertionError("no plugin from " + source + " in " + plugins);
    }

    /** A storage's lines in the configuration file, from its id to the next section. */
    private static String section(String yaml, String id) {
        List<String> lines = yaml.lines().toList();
        int start = lines.indexOf("  " + id + ":");
        assertThat(start).as("section %s in\n%s", id, yaml).isNotNegative();
        int end = start + 1;
        while (end < lines.size() && lines.get(end).startsWith("    ")) {
            end++;
        }
        return String.join("\n", lines.subList(start, end));
    }

    /** A copy of a jar without its META-INF/services entries: a jar that provides no plugin. */
    private static void withoutServiceEntry(Path from, Path to) throws IOException {
        Path tmp = Files.createTempFile(to.getParent(), ".broken", ".jar");
        try (JarFile in = new JarFile(from.toFile());
                OutputStream file = Files.newOutputStream(tmp);
                JarOutputStream out = new JarOutputStream(file)) {
            for (JarEntry e : java.util.Collections.list(in.entries())) {
                if (e.getName().startsWith("META-INF/services/")) {
                    continue;
                }
                out.putNextEntry(new JarEntry(e.getName()));
                try (InputStream data = in.getInputStream(e)) {
                    data.transferTo(out);
                }
                out.closeEntry();
            }
        }
        Files.move(tmp, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}
