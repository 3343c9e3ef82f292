package dev.vsm.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.spi.StorageConfig;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigWriterTest {
    @TempDir
    Path tmp;

    ConfigFiles files;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(tmp);
    }

    private static String render(StorageConfig... configs) {
        ConfigContents contents = ConfigContents.EMPTY;
        for (StorageConfig c : configs) {
            contents = contents.with(c);
        }
        return ConfigWriter.render(contents, TestSchemas.LOOKUP);
    }

    @Test
    void writesTypeFirstThenRequiredThenTheRestSorted() {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("saferemove", true);
        values.put("content", List.of("images", "rootdir"));
        values.put("vgname", "vg_san");
        values.put("saferemove-stepsize", 32L);
        values.put("bwlimit-ratio", 0.5);
        values.put("base", "iscsi0:lun1");
        assertThat(render(new StorageConfig("san", "lvm", values))).isEqualTo(ConfigWriter.HEADER + """
                storages:
                  san:
                    type: lvm
                    vgname: vg_san
                    base: iscsi0:lun1
                    bwlimit-ratio: 0.5
                    content: [images, rootdir]
                    saferemove: true
                    saferemove-stepsize: 32
                """);
    }

    @Test
    void aPlainPathIsTheScalarTheEmitterWrites() {
        for (String path : List.of("/var/lib/vz", "/srv/a.b_c+d-e/1", "/x", "/.", "/-", "/+1", "/0.5")) {
            assertThat(ConfigWriter.scalar(path)).as(path).isEqualTo(ConfigWriter.dumped(path));
        }
        // the emitter still quotes what needs it
        for (String text : List.of("/a b", "/a: b", "/a#b", "/a'b", "/", "relative", "-x", "~", "/\u00e9")) {
            assertThat(ConfigWriter.scalar(text)).as(text).isEqualTo(ConfigWriter.dumped(text));
        }
        assertThat(ConfigWriter.scalar("/a: b")).isNotEqualTo("/a: b");
    }

    @Test
    void quotesWhatYaml11ReadersWouldMisread() {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("path", "/srv");
        values.put("preallocation", "off");
        values.put("qcow2-subclusters", "on");
        values.put("nodes", List.of("yes", "no", "n1"));
        values.put("qcow2-cluster-size", "0777");
        assertThat(render(new StorageConfig("on", "dir", values))).isEqualTo(ConfigWriter.HEADER + """
                storages:
                  'on':
                    type: dir
                    path: /srv
                    nodes: ['yes', 'no', n1]
                    preallocation: 'off'
                    qcow2-cluster-size: '0777'
                    qcow2-subclusters: 'on'
                """);
    }

    @Test
    void quotesStringsYaml12WouldTakeForNumbersOrBooleans() {
        Map<String, Object> values =
                new LinkedHashMap<>(Map.of("vgname", "true", "saferemove_throughput", "-10485760"));
        assertThat(render(new StorageConfig("san", "lvm", values)))
                .contains("    vgname: 'true'\n")
                .contains("    saferemove_throughput: '-10485760'\n");
    }

    @Test
    void awkwardStringsSurviveTheRoundTrip() {
        String path = "/srv/it's: a #test, [x] {y} \"z\" \u00e9";
        files.write(render(new StorageConfig("local", "dir", Map.of("path", path, "content", List.of("iso")))));
        assertThat(files.load().require("local").get("path")).contains(path);
    }

    @Test
    void everyTypedValueReadsBackAsItWas() {
        Map<String, Object> san = new LinkedHashMap<>();
        san.put("vgname", "off");
        san.put("shared", false);
        san.put("saferemove-stepsize", 1L);
        san.put("bwlimit-ratio", 1.0E10);
        san.put("saferemove_throughput", "0x10");
        san.put("nodes", List.of("n1", "on"));
        Map<String, Object> local =
                Map.of("path", "/var/lib/vz", "content", List.of("none"), "max-protected-backups", -1L);
        StorageConfig a = new StorageConfig("san", "lvm", san);
        StorageConfig b = new StorageConfig("local", "dir", local);
        files.write(render(a, b));
        StorageConfigs read = files.load();
        assertThat(read.ids()).containsExactly("san", "local");
        assertThat(read.require("san")).isEqualTo(a);
        assertThat(read.require("local").properties()).isEqualTo(local);
    }

    @Test
    void anEmptyConfigurationIsStillAValidFile() {
        assertThat(render()).isEqualTo(ConfigWriter.HEADER + "storages: {}\n");
        files.write(render());
        assertThat(files.load().ids()).isEmpty();
    }
}
