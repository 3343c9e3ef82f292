package dev.vsm.plugin.lvmthin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.engine.PluginRegistry;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.VolumeFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The plugin's type, schema and section checks, and its registration. */
class LvmThinPluginTest {
    private final LvmThinPlugin plugin = new LvmThinPlugin();

    private static StorageConfig section(Map<String, Object> extra) {
        Map<String, Object> p = new LinkedHashMap<>(Map.of("vgname", "pve", "thinpool", "data"));
        p.putAll(extra);
        return new StorageConfig("local-lvm", "lvmthin", p);
    }

    @Test
    void isFoundOnTheClassPathAsTypeLvmthin() {
        assertThat(PluginRegistry.builtIn().plugin("lvmthin")).containsInstanceOf(LvmThinPlugin.class);
    }

    @Test
    void schemaAsPveWithTheOverprovisionRatio() {
        PluginSchema s = plugin.schema();
        assertThat(s.properties())
                .extracting(PropertySpec::name)
                .containsExactly("vgname", "thinpool", "max-overprovision", "nodes", "disable", "content", "bwlimit");
        assertThat(s.property("vgname").orElseThrow()).matches(p -> p.required() && p.fixed());
        assertThat(s.property("thinpool").orElseThrow()).matches(p -> p.required() && p.fixed());
        assertThat(s.property("max-overprovision").orElseThrow().type()).isEqualTo(PropertySpec.PropertyType.NUMBER);
        assertThat(s.content()).containsExactlyInAnyOrder(ContentType.IMAGES, ContentType.ROOTDIR);
        assertThat(s.defaultContent()).containsExactlyInAnyOrder(ContentType.IMAGES, ContentType.ROOTDIR);
        assertThat(s.formats()).containsExactly(VolumeFormat.RAW);
    }

    @Test
    void theRatioMustBePositive() {
        assertThatCode(() -> plugin.onAdd(section(Map.of("max-overprovision", 1.5)), null))
                .doesNotThrowAnyException();
        assertThatCode(() -> plugin.onAdd(section(Map.of("max-overprovision", 20L)), null))
                .doesNotThrowAnyException();
        Pattern ratio = Pattern.compile(
                plugin.schema().property("max-overprovision").orElseThrow().pattern());
        assertThat(List.of("1.5", "20", "+4", ".5", "0.01"))
                .allMatch(v -> ratio.matcher(v).matches());
        assertThat(List.of("0", "0.0", "-1", "NaN", "Infinity", "lots", "", "1e3"))
                .noneMatch(v -> ratio.matcher(v).matches());
    }

    @Test
    void aSectionWithoutItsPoolIsRefused() {
        StorageConfig noPool = new StorageConfig("local-lvm", "lvmthin", Map.of("vgname", "pve"));
        assertThatThrownBy(() -> plugin.onAdd(noPool, null))
                .hasMessage("storage 'local-lvm': missing value for required option 'thinpool'");
    }
}
