package dev.vsm.cluster;

import dev.vsm.config.ClusterSettings;
import dev.vsm.config.ConfigLocation;
import dev.vsm.config.ConfigStore;
import dev.vsm.engine.cluster.Cluster;
import dev.vsm.spi.CommonProperties;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.testing.FreePorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.curator.test.InstanceSpec;

/** What the cluster tests share: a {@code dir}-like schema, settings, and stores on a cluster. */
final class Fixtures {
    static final PluginSchema DIR = PluginSchema.builder()
            .properties(List.of(
                    PropertySpec.string("path", "base directory").asRequired(),
                    CommonProperties.content(EnumSet.allOf(ContentType.class)),
                    CommonProperties.nodes(),
                    CommonProperties.disable(),
                    CommonProperties.shared()))
            .content(EnumSet.allOf(ContentType.class), Set.of(ContentType.IMAGES))
            .formats(List.of(VolumeFormat.RAW), VolumeFormat.RAW)
            .build();

    static final Function<String, Optional<PluginSchema>> SCHEMAS =
            type -> type.equals("dir") ? Optional.of(DIR) : Optional.empty();

    static final String SEED =
            "storages:\n  local:\n    type: dir\n    path: /srv/local\n  san:\n    type: dir\n    path: /srv/san\n    shared: true\n";

    private Fixtures() {}

    /** Settings whose secret file is {@code secretDir/cluster.secret}, made (root's, 0600) if absent. */
    static ClusterSettings settings(String connect, String node, int sessionTimeoutSeconds, Path secretDir) {
        Path secret = secretDir.resolve(ClusterSettings.DEFAULT_SECRET_FILE);
        SecretFile.create(secret);
        return new ClusterSettings(connect, node, "/vsm", Duration.ofSeconds(sessionTimeoutSeconds), secret);
    }

    static ConfigStore store(Cluster cluster, Path dir) {
        return ConfigStore.clustered(
                new ConfigLocation(dir.resolve("local.yaml"), true, dir.resolve("local")),
                cluster.configSource(),
                SCHEMAS);
    }

    /**
     * A ZooKeeper server on free ports below the ephemeral range ({@link FreePorts} says why) whose
     * files all stay under {@code dir/name}. ZooKeeper's embedded server writes its configuration
     * file next to the data directory, which Curator otherwise makes straight under /tmp: each
     * server would leave a file there.
     */
    static InstanceSpec zooKeeperIn(Path dir, String name) throws IOException {
        Path data = Files.createDirectories(dir.resolve(name).resolve("data"));
        return new InstanceSpec(data.toFile(), FreePorts.next(), FreePorts.next(), FreePorts.next(), true, -1);
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
