package dev.vsm.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.testing.RecordingConsole;
import dev.vsm.testing.TestPlugins;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drop-in plugin whose code looks a class of its own jar up through the thread's context
 * class loader (the ctx test plugin, in its constructor, type, schema, open, and its storage's
 * status, activate and free cleanup) works: each call runs under the plugin's loader, and the
 * caller's loader is back afterwards.
 */
class ThreadContextClassLoaderTest {
    @TempDir
    Path tmp;

    @Test
    void everyCallIntoADropInRunsUnderItsClassLoader() throws Exception {
        Path plugins = Files.createDirectories(tmp.resolve("plugins"));
        Path jar = TestPlugins.jar("context-loader", plugins);
        List<String> warnings = new ArrayList<>();
        PluginDirectory dir = new PluginDirectory(plugins, true, "test");
        PluginRegistry registry =
                PluginRegistry.withDropIns(getClass().getClassLoader(), () -> dir.scan(warnings::add), warnings::add);
        ClassLoader caller = Thread.currentThread().getContextClassLoader();

        assertThat(registry.entries())
                .filteredOn(e -> e.source().equals(jar.toString()))
                .singleElement()
                .satisfies(e -> assertThat(e.problem()).isNull());
        assertThat(warnings).isEmpty();
        StoragePlugin plugin = registry.require("ctx");
        assertThat(plugin.schema().defaultFormat()).isEqualTo(VolumeFormat.RAW);
        Storage storage = plugin.open(
                new StorageConfig("c", "ctx", Map.of()),
                DefaultStorageContext.builder(new RecordingConsole()).build());
        storage.activate();
        assertThat(storage.status().active()).isTrue();
        Optional<Runnable> cleanup = storage.freeImage(null);
        assertThat(cleanup).isPresent();
        cleanup.get().run();
        assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(caller);
    }

    @Test
    @SuppressWarnings("try") // the swap is what is tested
    void theSwapPutsThePreviousLoaderBack() {
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        ClassLoader other = new ClassLoader(null) {};
        try (ThreadContextClassLoader swap = new ThreadContextClassLoader(other)) {
            assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(other);
        }
        assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(before);
    }
}
