package dev.vsm.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StoragePlugin;
import dev.vsm.testing.TestPlugins;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;

/**
 * What a drop-in plugin sees: its own jars, the JDK, and from vsm only the SPI and slf4j. "vsm"
 * here is a class loader holding vsm's class path plus a built-in plugin (the good test plugin).
 */
class PluginClassLoaderTest {
    private static final String SERVICES = "META-INF/services/" + StoragePlugin.class.getName();

    @TempDir
    Path dir;

    private URLClassLoader vsm;
    private PluginClassLoader plugin;

    @BeforeEach
    void setUp() throws Exception {
        Path builtIn = TestPlugins.jar("good", dir.resolve("vsm"));
        vsm = new URLClassLoader(
                "vsm", new URL[] {builtIn.toUri().toURL()}, getClass().getClassLoader());
        Path twin = TestPlugins.jar("twin-a", dir.resolve("plugins"));
        plugin = new PluginClassLoader(twin.toString(), List.of(twin.toUri().toURL()), vsm);
    }

    @AfterEach
    void close() throws Exception {
        plugin.close();
        vsm.close();
    }

    @Test
    void serviceLoaderFindsThePluginsOwnProviderOnlyNotTheBuiltInOnesAgain() throws Exception {
        List<String> found = ServiceLoader.load(StoragePlugin.class, plugin).stream()
                .map(p -> p.type().getName())
                .toList();
        assertThat(found).containsExactly("testplugin.twina.TwinPlugin");
        assertThat(Collections.list(plugin.getResources(SERVICES))).hasSize(1);
        assertThat(ServiceLoader.load(StoragePlugin.class, vsm).stream()
                        .map(p -> p.type().getName())
                        .toList())
                .as("the built-in is there for vsm")
                .containsExactly("testplugin.good.GoodPlugin");
    }

    @Test
    void theSpiAndSlf4jAreVsmsOwnClasses() throws Exception {
        assertThat(plugin.loadClass(StoragePlugin.class.getName())).isSameAs(StoragePlugin.class);
        assertThat(plugin.loadClass(Logger.class.getName())).isSameAs(Logger.class);
        assertThat(plugin.loadClass("testplugin.twina.TwinPlugin").getClassLoader())
                .isSameAs(plugin);
    }

    @Test
    void vsmsOtherLibrariesTheEngineAndBuiltInPluginsAreInvisible() {
        for (String hidden : List.of(
                "com.fasterxml.jackson.databind.ObjectMapper",
                "org.snakeyaml.engine.v2.api.Load",
                "dev.vsm.files.DirLayout", // a library plugins bundle, not the SPI
                PluginRegistry.class.getName(),
                "testplugin.good.GoodPlugin")) {
            assertThatThrownBy(() -> plugin.loadClass(hidden)).as(hidden).isInstanceOf(ClassNotFoundException.class);
        }
        assertThat(plugin.getResource("testplugin/good/GoodPlugin.class")).isNull();
    }

    @Test
    void theJdkIsVisible() throws Exception {
        assertThat(plugin.loadClass("java.util.List")).isSameAs(List.class);
        assertThat(plugin.loadClass("java.sql.Connection").getName()).isEqualTo("java.sql.Connection");
    }

    @Test
    void aPluginsCopyOfAClassThatVsmSharesIsIgnored() throws Exception {
        // the SPI comes from vsm even if a plugin jar bundles (an old copy of) it
        Path withSpi = TestPlugins.jar("good", dir.resolve("bundles-spi"));
        try (PluginClassLoader loader = new PluginClassLoader(
                "x",
                List.of(
                        withSpi.toUri().toURL(),
                        TestPlugins.spiLocation().toUri().toURL()),
                vsm)) {
            assertThat(loader.loadClass(StoragePlugin.class.getName())).isSameAs(StoragePlugin.class);
        }
    }
}
