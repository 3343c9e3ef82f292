package dev.vsm.t;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vsm.t.support.QemuImg;
import dev.vsm.t.support.ThinSandbox;
import dev.vsm.t.support.Vsm;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RootTest;
import dev.vsm.testing.Trees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built-in plugins dir, lvm and lvmthin shipped as drop-ins: vsm started with a class path of
 * the CLI, the framework, the SPI and the third-party libraries only (the jars the CLI's manifest
 * names, less the plugins and the LVM library), and the plugins' jars in its plugin directory,
 * each a sub-directory holding the plugin's jar and the libraries it bundles: the file-storage
 * library (vsm-files) for all three, the LVM library (vsm-lvm) for lvm and lvmthin. Each loads
 * from there and works; a drop-in without its library does not.
 */
class BuiltInPluginsAsDropInsTest {
    private static final Path LIB = Vsm.HOME.resolve("cli/target/lib");

    @TempDir
    Path sandbox;

    private Vsm vsm;
    private Path plugins;

    @BeforeEach
    void setUp() throws IOException {
        vsm = new Vsm(sandbox).launcher(launcherWithoutPlugins(sandbox));
        plugins = sandbox.resolve("plugins");
        for (String type : List.of("dir", "lvm", "lvmthin")) {
            Path dir = Files.createDirectories(plugins.resolve(type));
            Files.copy(jar("vsm-plugin-" + type), dir.resolve("vsm-plugin-" + type + ".jar"));
            Files.copy(jar("vsm-files"), dir.resolve("vsm-files.jar"));
            if (!type.equals("dir")) {
                Files.copy(jar("vsm-lvm"), dir.resolve("vsm-lvm.jar"));
            }
        }
    }

    @Test
    void theClassPathHasNoPlugin() throws IOException {
        for (String type : List.of("dir", "lvm", "lvmthin")) {
            Trees.delete(plugins.resolve(type));
        }
        vsm.writeConfig("storages: {}\n");
        assertThat(vsm.run("plugins", "--output-format", "json").ok().json()).isEmpty();
        vsm.run("add", "dir", "dd", "--path", sandbox.resolve("d").toString()).badInput("unsupported type 'dir'");
    }

    @Test
    void dirLoadsFromItsJarAndAllocatesListsAndFrees() {
        Path store = sandbox.resolve("d");
        vsm.writeConfig("""
                storages:
                  dd:
                    type: dir
                    path: %s
                """.formatted(store));
        JsonNode dir =
                bySource(vsm.run("plugins", "--output-format", "json").ok().json(), plugins.resolve("dir"));
        assertThat(dir.get("type").asText()).isEqualTo("dir");
        assertThat(dir.get("status").asText()).isEqualTo("loaded");

        assertThat(vsm.run("status", "--storage", "dd", "--output-format", "json")
                        .ok()
                        .json()
                        .get(0)
                        .get("active")
                        .asInt())
                .isEqualTo(1);
        assertThat(vsm.run("alloc", "dd", "100", "", "4M").ok().out())
                .isEqualTo("successfully created 'dd:100/vm-100-disk-0.raw'\n");
        Path disk = store.resolve("images/100/vm-100-disk-0.raw");
        assertThat(QemuImg.info(disk).get("virtual-size").asLong()).isEqualTo(4L << 20);
        assertThat(vsm.run("list", "dd", "--output-format", "json").ok().json())
                .extracting(v -> v.get("volid").asText())
                .containsExactly("dd:100/vm-100-disk-0.raw");
        vsm.run("free", "dd:100/vm-100-disk-0.raw").ok();
        assertThat(disk).doesNotExist();
    }

    @Test
    void aDirDropInWithoutTheFileLibraryDoesNotWork() throws IOException {
        Files.delete(plugins.resolve("dir/vsm-files.jar"));
        vsm.writeConfig("""
                storages:
                  dd:
                    type: dir
                    path: %s
                """.formatted(sandbox.resolve("d")));
        Vsm.Result status = vsm.run("status", "--storage", "dd");
        assertThat(status.out())
                .as("status reports the storage it cannot open as inactive")
                .contains("inactive");
        Vsm.Result alloc = vsm.run("alloc", "dd", "100", "", "1M");
        assertThat(alloc.exit())
                .as("stdout: %s stderr: %s", alloc.out(), alloc.err())
                .isNotZero();
        assertThat(sandbox.resolve("d/images/100/vm-100-disk-0.raw")).doesNotExist();
        assertThat(List.of(status.err(), alloc.err()))
                .as("a library missing at the first call is named, without a stack trace")
                .allSatisfy(err -> assertThat(err)
                        .contains("(dev.vsm.files.")
                        .contains("install it as a sub-directory")
                        .doesNotContain("\tat "));
    }

    @RootTest
    @Nested
    class OnALoopVolumeGroup {
        @RegisterExtension
        final LoopVolumeGroup vg = LoopVolumeGroup.ofMiB(128);

        @BeforeEach
        void storages() {
            ThinSandbox.writeLayout(vg);
            vsm.env(vg.environment()).writeConfig("""
                    storages:
                      san:
                        type: lvm
                        vgname: %1$s
                      thin:
                        type: lvmthin
                        vgname: %1$s
                        thinpool: data
                    """.formatted(vg.name()));
        }

        @Test
        void lvmAndLvmthinLoadFromTheirDirectoriesAndWork() {
            JsonNode listed = vsm.run("plugins", "--output-format", "json").ok().json();
            for (String type : List.of("lvm", "lvmthin")) {
                JsonNode plugin = bySource(listed, plugins.resolve(type));
                assertThat(plugin.get("type").asText()).isEqualTo(type);
                assertThat(plugin.get("status").asText()).as(type).isEqualTo("loaded");
            }

            JsonNode status = vsm.run("status", "--output-format", "json").ok().json();
            assertThat(status)
                    .extracting(s ->
                            s.get("storage").asText() + " " + s.get("active").asInt())
                    .containsExactlyInAnyOrder("san 1", "thin 1");
            assertThat(vsm.run("alloc", "thin", "100", "", "4M", "--dry-run")
                            .ok()
                            .out())
                    .contains("/sbin/lvcreate -aly -V 4096k")
                    .contains("--thinpool " + vg.name() + "/data");
            assertThat(vsm.run("list", "thin", "--output-format", "json").ok().json())
                    .extracting(v -> v.get("volid").asText())
                    .containsExactly("thin:base-102-disk-0", "thin:vm-100-disk-0", "thin:vm-101-disk-0");

            String created = vsm.run("alloc", "san", "100", "", "4M").ok().out();
            assertThat(created).startsWith("successfully created 'san:vm-100-disk-");
            String volid = created.substring(created.indexOf('\'') + 1, created.lastIndexOf('\''));
            assertThat(vsm.run("list", "san", "--output-format", "json").ok().json())
                    .extracting(v -> v.get("volid").asText())
                    .contains(volid);
            vsm.run("free", volid).ok();
            assertThat(vg.lvNames()).doesNotContain(volid.substring("san:".length()));
        }

        @Test
        void anLvmDropInWithoutTheLvmLibraryDoesNotWork() throws IOException {
            Files.delete(plugins.resolve("lvm/vsm-lvm.jar"));
            Vsm.Result status = vsm.run("status", "--storage", "san");
            assertThat(status.exit())
                    .as("stdout: %s stderr: %s", status.out(), status.err())
                    .isNotZero();
            assertThat(status.err()).contains("(dev.vsm.lvm.");
        }
    }

    /** A launcher like cli/vsm whose class path is the CLI's minus the plugins and the LVM library. */
    private static Path launcherWithoutPlugins(Path sandbox) throws IOException {
        List<String> classPath = new ArrayList<>();
        classPath.add(Vsm.HOME.resolve("cli/target/classes").toString());
        try (JarFile cli =
                new JarFile(Vsm.HOME.resolve("cli/target/vsm-cli.jar").toFile())) {
            for (String entry :
                    cli.getManifest().getMainAttributes().getValue("Class-Path").split(" ")) {
                String name = Path.of(entry).getFileName().toString();
                if (!name.startsWith("vsm-plugin-") && !name.startsWith("vsm-lvm")) {
                    classPath.add(Vsm.HOME.resolve("cli/target").resolve(entry).toString());
                }
            }
        }
        assertThat(classPath)
                .anyMatch(p -> p.contains("vsm-spi"))
                .anyMatch(p -> p.contains("vsm-framework"))
                .noneMatch(p -> p.contains("plugin"))
                .noneMatch(p -> p.contains("vsm-lvm"));
        Path script = sandbox.resolve("vsm-without-plugins");
        Files.writeString(
                script,
                "#!/bin/sh\nexec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -cp '"
                        + String.join(":", classPath) + "' dev.vsm.cli.Main \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    /** The built jar of a module, as the CLI's build copied it. */
    private static Path jar(String artifact) {
        Path jar = LIB.resolve(artifact + "-0.1.0-SNAPSHOT.jar");
        assertThat(jar).as("built before the end-to-end tests").isRegularFile();
        return jar;
    }

    private static JsonNode bySource(JsonNode listed, Path source) {
        for (JsonNode e : listed) {
            if (e.get("source").asText().equals(source.toString())) {
                return e;
            }
        }
        throw new AssertionError("no plugin from " + source + " in " + listed);
    }
}
