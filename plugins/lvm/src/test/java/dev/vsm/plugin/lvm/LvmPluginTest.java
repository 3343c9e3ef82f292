package dev.vsm.plugin.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.engine.DefaultStorageContext;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.testing.RecordingConsole;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class LvmPluginTest {
    private final DefaultStorageContext context =
            DefaultStorageContext.builder(new RecordingConsole()).dryRun(true).build();

    @Test
    void isFoundByTheServiceLoader() {
        assertThat(ServiceLoader.load(StoragePlugin.class).stream().map(ServiceLoader.Provider::type))
                .contains(LvmPlugin.class);
        assertThat(new LvmPlugin().type()).isEqualTo("lvm");
    }

    @Test
    void schemaAsPve() {
        var schema = new LvmPlugin().schema();
        PropertySpec vgname = schema.property("vgname").orElseThrow();
        assertThat(vgname.required()).isTrue();
        assertThat(vgname.fixed()).isTrue();
        assertThat("pve").matches(vgname.pattern());
        assertThat("VG_data.1-x").matches(vgname.pattern());
        assertThat("-vg").doesNotMatch(vgname.pattern());
        assertThat("vg name").doesNotMatch(vgname.pattern());
        assertThat(schema.property("base").orElseThrow().fixed()).isTrue();
        PropertySpec step = schema.property("saferemove-stepsize").orElseThrow();
        assertThat(step.type()).isEqualTo(PropertySpec.PropertyType.INTEGER);
        assertThat(step.allowed()).containsExactly("1", "2", "4", "8", "16", "32");
        assertThat(step.defaultValue()).isEqualTo(32L);
        assertThat("-10485760")
                .matches(schema.property("saferemove_throughput").orElseThrow().pattern());
        assertThat("10m")
                .matches(schema.property("saferemove_throughput").orElseThrow().pattern());
        assertThat("10; rm")
                .doesNotMatch(
                        schema.property("saferemove_throughput").orElseThrow().pattern());
        assertThat(schema.properties())
                .map(PropertySpec::name)
                .containsExactly(
                        "vgname",
                        "base",
                        "saferemove",
                        "saferemove-stepsize",
                        "saferemove_throughput",
                        "tagged_only",
                        "snapshot-as-volume-chain",
                        "shrink-snapshot-lvs",
                        "nodes",
                        "shared",
                        "disable",
                        "content",
                        "bwlimit");
        assertThat(schema.content()).containsExactlyInAnyOrder(ContentType.IMAGES, ContentType.ROOTDIR);
        assertThat(schema.defaultContent()).containsExactly(ContentType.IMAGES);
        assertThat(schema.defaultFormat()).isEqualTo(VolumeFormat.RAW);
    }

    @Test
    void optionsWithPvesDefaults() {
        assertThat(LvmOptions.of(config(Map.of("vgname", "vg0"))))
                .isEqualTo(new LvmOptions("vg0", false, 32, null, false, false));
        assertThat(LvmOptions.of(config(Map.of(
                        "vgname",
                        "vg0",
                        "saferemove",
                        true,
                        "saferemove-stepsize",
                        4L,
                        "saferemove_throughput",
                        "1048576",
                        "tagged_only",
                        true))))
                .isEqualTo(new LvmOptions("vg0", true, 4, "1048576", true, false));
    }

    @Test
    void iscsiBasesAreRefusedWithTheFix() {
        StorageConfig withBase = config(Map.of("vgname", "vg0", "base", "iscsi0:0.0.1.scsi-36001"));
        assertThatThrownBy(() -> new LvmPlugin().onAdd(withBase, context))
                .isInstanceOf(StorageException.class)
                .hasMessage(
                        "storage 'san': 'base' is not supported by vsm (it builds the volume group on an iSCSI LUN); "
                                + "create the volume group with vgcreate and add the storage without 'base'")
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
        assertThatThrownBy(() -> new LvmPlugin().open(withBase, context))
                .hasMessageStartingWith("storage 'san': 'base' is not supported");
    }

    @Test
    void volumeChainsAddQcow2AsTheDefaultFormat() {
        StorageConfig chains = config(Map.of("vgname", "vg0", "snapshot-as-volume-chain", true));
        LvmPlugin plugin = new LvmPlugin();
        plugin.onUpdate(config(Map.of("vgname", "vg0")), chains, context);
        plugin.onAdd(chains, context);
        assertThat(plugin.open(chains, context)).isNotNull();
        assertThat(plugin.formats(chains))
                .as("pve's get_formats")
                .containsExactly(VolumeFormat.QCOW2, VolumeFormat.RAW);
        assertThat(plugin.defaultFormat(chains)).isEqualTo(VolumeFormat.QCOW2);
        StorageConfig plain = config(Map.of("vgname", "vg0"));
        assertThat(plugin.formats(plain)).as("pve: raw only without the option").containsExactly(VolumeFormat.RAW);
        assertThat(plugin.defaultFormat(plain)).isEqualTo(VolumeFormat.RAW);
    }

    @Test
    void shrinkingSnapshotLvsNeedsVolumeChains() {
        StorageConfig both =
                config(Map.of("vgname", "vg0", "snapshot-as-volume-chain", true, "shrink-snapshot-lvs", true));
        assertThat(LvmOptions.of(both).shrinkSnapshotLvs()).isTrue();
        new LvmPlugin().onAdd(both, context);
        StorageConfig alone = config(Map.of("vgname", "vg0", "shrink-snapshot-lvs", true));
        assertThatThrownBy(() -> new LvmPlugin().onAdd(alone, context))
                .hasMessage(
                        "storage 'san': 'shrink-snapshot-lvs' needs 'snapshot-as-volume-chain'; set both or neither")
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
        assertThatThrownBy(() -> new LvmPlugin().onUpdate(both, alone, context))
                .hasMessageContaining("needs 'snapshot-as-volume-chain'");
    }

    private static StorageConfig config(Map<String, Object> properties) {
        return new StorageConfig("san", "lvm", properties);
    }
}
