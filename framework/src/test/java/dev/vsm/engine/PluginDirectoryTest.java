package dev.vsm.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginDirectoryTest {
    @TempDir
    Path tmp;

    private final List<String> warnings = new ArrayList<>();

    @Test
    void optionThenEnvironmentThenConfigurationThenDefault() {
        Map<String, String> env = Map.of(PluginDirectory.ENV, "/from/env");
        assertThat(PluginDirectory.resolve(Path.of("/from/option"), env, () -> Optional.of(Path.of("/from/config"))))
                .isEqualTo(new PluginDirectory(Path.of("/from/option"), true, "--plugin-dir"));
        assertThat(PluginDirectory.resolve(null, env, () -> Optional.of(Path.of("/from/config")))
                        .dir())
                .isEqualTo(Path.of("/from/env"));
        assertThat(PluginDirectory.resolve(null, Map.of(), () -> Optional.of(Path.of("/from/config"))))
                .extracting(PluginDirectory::dir, PluginDirectory::explicit)
                .containsExactly(Path.of("/from/config"), true);
        assertThat(PluginDirectory.resolve(null, Map.of(PluginDirectory.ENV, " "), Optional::empty))
                .isEqualTo(new PluginDirectory(PluginDirectory.DEFAULT, false, "default"));
    }

    @Test
    void theConfigurationIsNotReadWhenTheOptionOrEnvironmentDecides() {
        PluginDirectory.resolve(Path.of("/x"), Map.of(), () -> {
            throw new AssertionError("config read");
        });
        PluginDirectory.resolve(null, Map.of(PluginDirectory.ENV, "/y"), () -> {
            throw new AssertionError("config read");
        });
    }

    @Test
    void aMissingDefaultDirectoryIsNoPluginsAMissingChosenOneAWarning() {
        assertThat(new PluginDirectory(tmp.resolve("none"), false, "default").scan(warnings::add))
                .isEmpty();
        assertThat(warnings).isEmpty();
        assertThat(new PluginDirectory(tmp.resolve("none"), true, "--plugin-dir").scan(warnings::add))
                .isEmpty();
        assertThat(warnings)
                .singleElement()
                .asString()
                .contains(tmp.resolve("none").toString(), "--plugin-dir", "does not exist", "fix the path");
    }

    @Test
    void eachJarAndEachSubdirectoryIsOnePluginInNameOrder() throws Exception {
        Files.writeString(tmp.resolve("b.jar"), "");
        Files.writeString(tmp.resolve("README"), "not a plugin");
        Files.writeString(tmp.resolve(".hidden.jar"), "");
        Files.createDirectories(tmp.resolve("a-with-libs"));
        Files.writeString(tmp.resolve("a-with-libs/z-lib.jar"), "");
        Files.writeString(tmp.resolve("a-with-libs/plugin.jar"), "");
        Files.writeString(tmp.resolve("a-with-libs/notes.txt"), "");
        Files.createDirectories(tmp.resolve("c-empty"));
        List<PluginBundle> bundles = new PluginDirectory(tmp, true, "test").scan(warnings::add);
        assertThat(bundles)
                .containsExactly(
                        new PluginBundle(
                                tmp.resolve("a-with-libs"),
                                List.of(tmp.resolve("a-with-libs/plugin.jar"), tmp.resolve("a-with-libs/z-lib.jar"))),
                        new PluginBundle(tmp.resolve("b.jar"), List.of(tmp.resolve("b.jar"))),
                        new PluginBundle(tmp.resolve("c-empty"), List.of()));
        assertThat(warnings).isEmpty();
    }

    @Test
    void aFileInsteadOfADirectoryIsAWarning() throws Exception {
        Files.writeString(tmp.resolve("file"), "");
        assertThat(new PluginDirectory(tmp.resolve("file"), true, "$VSM_PLUGIN_DIR").scan(warnings::add))
                .isEmpty();
        assertThat(warnings).singleElement().asString().contains("is not a directory");
    }
}
