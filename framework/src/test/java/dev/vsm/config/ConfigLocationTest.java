package dev.vsm.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigLocationTest {
    private static final Path HOME = Path.of("/home/ann");

    @Test
    void theConfigOptionWinsAndIsExplicit() {
        ConfigLocation l = ConfigLocation.resolve(Path.of("/tmp/s.yaml"), Map.of("VSM_CONFIG", "/env.yaml"), HOME);
        assertThat(l.file()).isEqualTo(Path.of("/tmp/s.yaml"));
        assertThat(l.explicit()).isTrue();
    }

    @Test
    void thenTheEnvironmentAsExplicitAsTheOptionThenTheDefault() {
        ConfigLocation fromEnv = ConfigLocation.resolve(null, Map.of("VSM_CONFIG", "/env.yaml"), HOME);
        assertThat(fromEnv.file()).isEqualTo(Path.of("/env.yaml"));
        assertThat(fromEnv.explicit()).isTrue();
        ConfigLocation byDefault = ConfigLocation.resolve(null, Map.of("VSM_CONFIG", " "), HOME);
        assertThat(byDefault.file()).isEqualTo(Path.of("/etc/vsm/storage.yaml"));
        assertThat(byDefault.explicit()).isFalse();
    }

    @Test
    void theDefaultLocalStorageFollowsXdgDataHome() {
        assertThat(ConfigLocation.resolve(null, Map.of("XDG_DATA_HOME", "/data", "HOME", "/h"), HOME)
                        .defaultLocalDir())
                .isEqualTo(Path.of("/data/vsm/local"));
        assertThat(ConfigLocation.resolve(null, Map.of("XDG_DATA_HOME", "relative", "HOME", "/h"), HOME)
                        .defaultLocalDir())
                .isEqualTo(Path.of("/h/.local/share/vsm/local"));
        assertThat(ConfigLocation.resolve(null, Map.of(), HOME).defaultLocalDir())
                .isEqualTo(Path.of("/home/ann/.local/share/vsm/local"));
    }

    @Test
    void aRelativeConfigPathIsMadeAbsolute() {
        assertThat(ConfigLocation.resolve(Path.of("conf/s.yaml"), Map.of(), HOME)
                        .file())
                .isEqualTo(Path.of("conf/s.yaml").toAbsolutePath());
    }
}
