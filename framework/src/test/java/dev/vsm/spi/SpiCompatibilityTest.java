package dev.vsm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.engine.DefaultStorageContext;
import dev.vsm.engine.PluginDirectory;
import dev.vsm.engine.PluginRegistry;
import dev.vsm.engine.StorageManager;
import dev.vsm.testing.TestPlugins;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SPI stays compatible with plugins written for version 1: {@code test-plugins/spi-v1}, a
 * plugin that uses every part of the SPI a plugin can, is compiled against today's SPI, loaded
 * from a jar in its own class loader, and driven through the engine. An SPI change that would
 * break such a plugin (a removed or changed method, a new abstract one) fails here. Once a
 * release of the SPI jar exists, japicmp against it belongs in the build as well.
 */
class SpiCompatibilityTest {
    @TempDir
    Path tmp;

    private final List<String> console = new ArrayList<>();

    @Test
    void aPluginWrittenForVersionOneCompilesLoadsAndWorks() {
        Path plugins = tmp.resolve("plugins");
        TestPlugins.jar("spi-v1", plugins);
        List<String> warnings = new ArrayList<>();
        PluginDirectory dir = new PluginDirectory(plugins, true, "test");
        PluginRegistry registry =
                PluginRegistry.withDropIns(getClass().getClassLoader(), () -> dir.scan(warnings::add), warnings::add);
        StoragePlugin plugin = registry.require("memory");
        assertThat(warnings).isEmpty();
        assertThat(plugin.apiVersion()).isEqualTo(1);

        StorageConfig config = new StorageConfig("mem", "memory", Map.of("path", "/srv/mem", "volume-limit", 3L));
        plugin.onAdd(config, context());
        StorageManager manager = new StorageManager(registry, Map.of("mem", config), context());

        VolumeId disk = manager.alloc("mem", 100, null, (String) null, 1024, null);
        assertThat(disk).hasToString("mem:100/vm-100-disk-0.raw");
        assertThat(manager.path(disk)).isEqualTo(Path.of("/srv/mem/images/100/vm-100-disk-0.raw"));
        assertThat(manager.resize(disk, 2 << 20)).isEqualTo(2 << 20);
        VolumeId base = manager.createBase(disk);
        assertThat(manager.info(base).features())
                .as("the default hasFeature, from operations()")
                .containsExactly(Feature.CLONE);
        VolumeId clone = manager.cloneVolume(base, 101);
        assertThat(manager.info(clone).features()).containsExactly(Feature.TEMPLATE);
        assertThat(manager.list("mem", null, null))
                .extracting(VolumeInfo::volid)
                .containsExactly(base.toString(), clone.toString());
        assertThat(manager.status(dev.vsm.engine.StatusFilter.ALL))
                .singleElement()
                .satisfies(row -> assertThat(row.status().active()).isTrue());
        manager.free(clone);
        assertThatThrownBy(() -> manager.free(clone))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("no volume");
        assertThat(console).contains("allocated mem:100/vm-100-disk-0.raw", "freed " + clone.volname());

        assertThatThrownBy(() -> plugin.onUpdate(config, config.with("volume-limit", 0L), context()))
                .isInstanceOf(StorageException.class)
                .hasMessage("volume-limit must be at least 1");
    }

    private StorageContext context() {
        return DefaultStorageContext.builder(new Console() {
                    @Override
                    public void info(String line) {
                        console.add(line);
                    }

                    @Override
                    public void warn(String line) {
                        console.add("warning: " + line);
                    }
                })
                .build();
    }
}
