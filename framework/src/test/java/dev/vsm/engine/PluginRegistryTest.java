package dev.vsm.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.Version;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vsm.engine.PluginRegistry.Entry;
import dev.vsm.spi.StorageApi;
import dev.vsm.spi.StorageException;
import dev.vsm.testing.TestPlugins;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The registry over a plugin directory of test plugin jars compiled for each test. */
class PluginRegistryTest {
    @TempDir
    Path tmp;

    private Path plugins;
    private URLClassLoader builtIns;
    private final List<String> warnings = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        plugins = Files.createDirectories(tmp.resolve("plugins"));
        Path good = TestPlugins.jar("good", tmp.resolve("vsm-class-path"));
        builtIns = new URLClassLoader(
                "vsm", new URL[] {good.toUri().toURL()}, getClass().getClassLoader());
    }

    @AfterEach
    void close() throws Exception {
        builtIns.close();
    }

    private PluginRegistry registry() {
        PluginDirectory dir = new PluginDirectory(plugins, true, "test");
        return PluginRegistry.withDropIns(builtIns, () -> dir.scan(warnings::add), warnings::add);
    }

    private Entry entry(PluginRegistry registry, String source) {
        return registry.entries().stream()
                .filter(e -> e.source().equals(source))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aGoodDropInLoadsInItsOwnClassLoaderAndIsListedWithItsJar() {
        Path jar = TestPlugins.jar("twin-a", plugins);
        PluginRegistry registry = registry();
        assertThat(DropInCalls.target(registry.require("twin")).getClass().getClassLoader())
                .isInstanceOf(PluginClassLoader.class);
        assertThat(registry.entries())
                .containsExactly(
                        new Entry(
                                "good",
                                "testplugin.good.GoodPlugin",
                                PluginRegistry.BUILT_IN,
                                StorageApi.VERSION,
                                null),
                        new Entry("twin", "testplugin.twina.TwinPlugin", jar.toString(), StorageApi.VERSION, null));
        assertThat(warnings).isEmpty();
    }

    @Test
    void eachBrokenPluginIsRefusedWithOneWarningNamingTheJarTheReasonAndTheFix() throws Exception {
        TestPlugins.jar("good", plugins); // the same type as a built-in
        TestPlugins.jar("future", plugins);
        TestPlugins.jar("too-old", plugins);
        TestPlugins.jar("throws", plugins);
        TestPlugins.jar("no-service", plugins);
        TestPlugins.jar("twin-a", plugins);
        TestPlugins.jar("twin-b", plugins);
        TestPlugins.jar("bad-name", plugins);
        Files.writeString(plugins.resolve("corrupt.jar"), "not a zip file");
        Files.createDirectories(plugins.resolve("empty-dir"));
        PluginRegistry registry = registry();

        assertThat(registry.plugins()).containsOnlyKeys("good", "twin");
        assertThat(DropInCalls.target(registry.plugin("twin").orElseThrow())
                        .getClass()
                        .getName())
                .isEqualTo("testplugin.twina.TwinPlugin");
        String range = StorageApi.acceptedRange();
        assertRefused(
                registry,
                "future.jar",
                StorageApi.VERSION + 1,
                "built for storage API version " + (StorageApi.VERSION + 1) + ", this vsm accepts " + range,
                "update vsm, or use a release of the plugin built for API " + StorageApi.VERSION);
        assertRefused(
                registry,
                "too-old.jar",
                StorageApi.VERSION - StorageApi.AGE - 1,
                "built for storage API version " + (StorageApi.VERSION - StorageApi.AGE - 1),
                "update the plugin (rebuild it against this vsm's SPI)");
        assertRefused(
                registry,
                "throws.jar",
                null,
                "cannot create the plugin: IllegalStateException: cannot read /etc/throwing.conf",
                "fix the plugin or remove it");
        assertRefused(
                registry,
                "no-service.jar",
                null,
                "no storage plugin in it (no META-INF/services/dev.vsm.spi.StoragePlugin entry)",
                "add that file naming the class that implements dev.vsm.spi.StoragePlugin, or remove the jar");
        assertRefused(
                registry,
                "twin-b.jar",
                StorageApi.VERSION,
                "type 'twin' is already provided by testplugin.twina.TwinPlugin (" + plugins.resolve("twin-a.jar")
                        + ")",
                "remove one of the two");
        assertRefused(
                registry,
                "good.jar",
                StorageApi.VERSION,
                "type 'good' is already provided by testplugin.good.GoodPlugin (built-in)",
                "remove one of the two");
        assertRefused(
                registry,
                "bad-name.jar",
                StorageApi.VERSION,
                "type name 'Bad Name' is not a valid identifier",
                "the plugin must change it");
        assertRefused(
                registry,
                "corrupt.jar",
                null,
                "corrupt.jar is not a readable jar",
                "replace it with a good copy or remove it");
        assertRefused(registry, "empty-dir", null, "the directory holds no *.jar file", "or remove the directory");

        List<Entry> refused =
                registry.entries().stream().filter(e -> !e.loaded()).toList();
        assertThat(refused).hasSize(9);
        assertThat(warnings)
                .as("one warning per refused plugin")
                .containsExactlyElementsOf(refused.stream().map(Entry::warning).toList());
        assertThat(warnings)
                .allSatisfy(w -> assertThat(w).doesNotContain("\n").startsWith("storage plugin " + plugins));
    }

    private void assertRefused(PluginRegistry registry, String file, Integer apiVersion, String reason, String fix) {
        Entry e = entry(registry, plugins.resolve(file).toString());
        assertThat(e.loaded()).isFalse();
        assertThat(e.apiVersion()).isEqualTo(apiVersion);
        assertThat(e.problem()).contains(reason).endsWith(fix);
        assertThat(warnings).contains(e.warning());
    }

    @Test
    void pluginsBundlingTheirOwnCopiesOfALibrarySeeTheirOwnAndVsmKeepsItsOwn() {
        for (String x : List.of("a", "b")) {
            Path subdir = plugins.resolve("jackson-user-" + x);
            Path library = TestPlugins.jar("stand-in-jackson-" + x, subdir);
            TestPlugins.jar("jackson-user-" + x, subdir, library);
        }
        PluginRegistry registry = registry();
        assertThat(warnings).isEmpty();
        assertThat(registry.require("jackson-user-a")
                        .schema()
                        .property("path")
                        .orElseThrow()
                        .description())
                .isEqualTo("uses stand-in A from " + plugins.resolve("jackson-user-a"));
        assertThat(registry.require("jackson-user-b")
                        .schema()
                        .property("path")
                        .orElseThrow()
                        .description())
                .isEqualTo("uses stand-in B from " + plugins.resolve("jackson-user-b"));
        Version vsmsOwn = new ObjectMapper().version();
        assertThat(vsmsOwn.getMajorVersion()).isEqualTo(2);
    }

    @Test
    void aPluginWithoutTheLibraryItNeedsIsRefusedWithTheFix() {
        Path library = TestPlugins.jar("stand-in-jackson-a", tmp.resolve("lib"));
        TestPlugins.jar("jackson-user-a", plugins, library);
        PluginRegistry registry = registry();
        assertThat(registry.plugin("jackson-user-a")).isEmpty();
        assertThat(entry(registry, plugins.resolve("jackson-user-a.jar").toString())
                        .problem())
                .contains("ClassNotFoundException: com.fasterxml.jackson.databind.ObjectMapper")
                .endsWith("install it as a sub-directory holding the plugin's jar and its libraries");
    }

    @Test
    void dropInsAreLoadedOnlyWhenABuiltInCannotAnswerAndOnlyOnce() throws Exception {
        TestPlugins.jar("twin-a", plugins);
        TestPlugins.jar("future", plugins);
        AtomicInteger scans = new AtomicInteger();
        PluginDirectory dir = new PluginDirectory(plugins, true, "test");
        PluginRegistry registry = PluginRegistry.withDropIns(
                builtIns,
                () -> {
                    scans.incrementAndGet();
                    return dir.scan(warnings::add);
                },
                warnings::add);
        assertThat(registry.plugin("good")).isPresent();
        assertThat(scans).hasValue(0);
        assertThat(warnings)
                .as("no warning about a drop-in that was not needed")
                .isEmpty();
        assertThat(registry.plugin("twin")).isPresent();
        assertThat(registry.plugin("nothing")).isEmpty();
        registry.entries();
        registry.plugins();
        assertThat(scans).hasValue(1);
        assertThat(warnings).hasSize(1);
    }

    @Test
    void anUnknownTypeNamesEveryLoadedType() {
        TestPlugins.jar("twin-a", plugins);
        assertThatThrownBy(() -> registry().require("nfs"))
                .isInstanceOf(StorageException.class)
                .hasMessage("unsupported type 'nfs' (known types: good, twin)");
    }
}
