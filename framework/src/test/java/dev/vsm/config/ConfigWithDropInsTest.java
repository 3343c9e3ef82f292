package dev.vsm.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.engine.PluginDirectory;
import dev.vsm.engine.PluginRegistry;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.testing.TestPlugins;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configuration with types from drop-in jars: the plugin directory named in the file, and
 * the sections of a jar that fails to load kept untouched through edits (pve drops them).
 */
class ConfigWithDropInsTest {
    private static final String OLD_SECTION = """
              old:
                type: too-old
                path: /srv/old
                odd-key:
                - x
                - y
            """;

    @TempDir
    Path tmp;

    private ConfigFiles files;
    private ConfigStore store;
    private final List<String> warnings = new ArrayList<>();

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(tmp);
        Path plugins = files.file.getParent().resolve("plugins");
        TestPlugins.jar("good", plugins);
        TestPlugins.jar("too-old", plugins);
        PluginRegistry registry = PluginRegistry.withDropIns(
                getClass().getClassLoader(),
                () -> PluginDirectory.resolve(null, Map.of(), () -> store.pluginDir())
                        .scan(warnings::add),
                warnings::add);
        store = new ConfigStore(
                files.location(), type -> registry.plugin(type).map(StoragePlugin::schema), files.locks());
    }

    @Test
    void thePluginDirectoryComesFromTheFileRelativeToIt() {
        assertThat(store.pluginDir()).isEmpty();
        files.write("plugin-dir: plugins\nstorages: {}\n");
        assertThat(store.pluginDir()).contains(files.file.getParent().resolve("plugins"));
        files.write("plugin-dir: /opt/vsm/plugins\n");
        assertThat(store.pluginDir()).contains(Path.of("/opt/vsm/plugins"));
    }

    @Test
    void aPluginDirectoryThatIsNotAPathIsAProblemWithItsLine() {
        files.write("storages: {}\nplugin-dir: [a, b]\n");
        assertThatThrownBy(store::pluginDir)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(files.file + ":2: plugin-dir: must be the path of a directory of plugin jars");
        assertThatThrownBy(store::load).isInstanceOf(ConfigException.class).hasMessageContaining(":2: plugin-dir:");
    }

    @Test
    void sectionsOfARefusedJarSurviveEveryEditUntouched() {
        files.write("plugin-dir: plugins\nstorages:\n  aa:\n    type: good\n    path: /srv/a\n" + OLD_SECTION);
        StorageConfigs configs = store.load();
        assertThat(configs.storages()).containsOnlyKeys("aa");
        assertThat(configs.unloaded()).containsOnlyKeys("old");
        assertThat(configs.warnings())
                .singleElement()
                .asString()
                .contains("storage 'old': type 'too-old' is not loaded");
        assertThat(warnings).singleElement().asString().contains("too-old.jar", "built for storage API version");

        store.add("good", "bb", Map.of("path", "/srv/b"));
        store.update("aa", Map.of("path", "/srv/a2"), List.of(), null);
        store.remove("aa");
        assertThat(files.text())
                .endsWith("\nplugin-dir: plugins\nstorages:\n" + OLD_SECTION
                        + "  bb:\n    type: good\n    path: /srv/b\n");
        assertThat(store.load().unloaded()).containsOnlyKeys("old");
        assertThat(warnings).as("the jar is refused once per registry").hasSize(1);
    }
}
