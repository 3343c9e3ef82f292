package dev.vsm.plugin.dir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.engine.DefaultStorageContext;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.spi.VolumeFormat;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class DirPluginTest {
    private final RecordingConsole console = new RecordingConsole();
    private final DefaultStorageContext context =
            DefaultStorageContext.builder(console).dryRun(true).build();

    @Test
    void isFoundByTheServiceLoader() {
        assertThat(ServiceLoader.load(StoragePlugin.class).stream().map(ServiceLoader.Provider::type))
                .contains(DirPlugin.class);
    }

    @Test
    void schema() {
        var schema = new DirPlugin().schema();
        PropertySpec path = schema.property("path").orElseThrow();
        assertThat(path.required()).isTrue();
        assertThat(path.fixed()).isTrue();
        assertThat(schema.content()).containsExactlyInAnyOrder(ContentType.values());
        assertThat(schema.defaultContent()).containsExactlyInAnyOrder(ContentType.IMAGES, ContentType.ROOTDIR);
        assertThat(schema.formats())
                .containsExactly(VolumeFormat.RAW, VolumeFormat.QCOW2, VolumeFormat.VMDK, VolumeFormat.SUBVOL);
        assertThat(schema.defaultFormat()).isEqualTo(VolumeFormat.RAW);
        assertThat(schema.properties())
                .map(PropertySpec::name)
                .contains(
                        "content-dirs",
                        "nodes",
                        "shared",
                        "disable",
                        "content",
                        "format",
                        "preallocation",
                        "mkdir",
                        "create-base-path",
                        "create-subdirs",
                        "is_mountpoint",
                        "qcow2-subclusters",
                        "qcow2-cluster-size",
                        "prune-backups",
                        "max-protected-backups",
                        "bwlimit",
                        "snapshot-as-volume-chain");
        assertThat(schema.properties()).map(PropertySpec::name).doesNotHaveDuplicates();
    }

    @Test
    void contentDirsPatternAgreesWithTheLayoutRules() {
        String pattern =
                new DirPlugin().schema().property("content-dirs").orElseThrow().pattern();
        assertThat("iso=isos/linux").matches(pattern);
        assertThat("iso=../up").doesNotMatch(pattern);
        assertThat("iso=isos.").doesNotMatch(pattern);
        assertThat("iso=").doesNotMatch(pattern);
    }

    @Test
    void onAddChecksThePathAsPveDoes() {
        DirPlugin plugin = new DirPlugin();
        plugin.onAdd(config(Map.of("path", "/srv/vz-1_a.b@c")), context);
        assertThatThrownBy(() -> plugin.onAdd(config(Map.of("path", "/srv/my vz")), context))
                .hasMessage("illegal path for directory storage: /srv/my vz");
        assertThatThrownBy(() -> plugin.onAdd(config(Map.of("path", "srv")), context))
                .hasMessage("illegal path for directory storage: srv");
    }

    @Test
    void onAddAndOpenCheckContentDirs() {
        DirPlugin plugin = new DirPlugin();
        assertThatThrownBy(() ->
                        plugin.onAdd(config(Map.of("path", "/srv", "content-dirs", List.of("iso=../x"))), context))
                .hasMessage("invalid override 'iso=../x'");
        assertThatThrownBy(
                        () -> plugin.open(config(Map.of("path", "/srv", "content-dirs", List.of("iso=../x"))), context))
                .hasMessage("invalid override 'iso=../x'");
    }

    @Test
    void volumeChainsAreTakenAndFixedAtAdd() {
        DirPlugin plugin = new DirPlugin();
        StorageConfig chains = config(Map.of("path", "/srv", "snapshot-as-volume-chain", true));
        plugin.onAdd(chains, context);
        assertThat(plugin.open(chains, context)).isNotNull();
        assertThat(plugin.schema().properties())
                .filteredOn(p -> p.name().equals("snapshot-as-volume-chain"))
                .singleElement()
                .matches(p -> p.fixed());
    }

    @Test
    void theDeprecatedMkdirGetsANote() {
        new DirPlugin().onAdd(config(Map.of("path", "/srv", "mkdir", true)), context);
        assertThat(console.warnings)
                .containsExactly(
                        "NOTE: The 'mkdir' option set for 'local' is deprecated. Use 'create-base-path' or 'create-subdirs' instead.");
    }

    private static StorageConfig config(Map<String, Object> properties) {
        return new StorageConfig("local", "dir", properties);
    }
}
