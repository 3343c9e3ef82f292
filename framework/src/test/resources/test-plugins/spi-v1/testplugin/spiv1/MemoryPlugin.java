package testplugin.spiv1;

import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.CommonProperties;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StoragePlugin;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A plugin written against version 1 of the SPI, as a third party would write it: it uses every
 * part of the SPI a plugin can use. SpiCompatibilityTest compiles it against today's SPI and
 * drives it through the engine: a change to the SPI that breaks it breaks plugin jars.
 * Do not update it for a new SPI; add a plugin for the new version next to it.
 */
public final class MemoryPlugin implements StoragePlugin {
    static final String PATH = "path";
    static final String LIMIT = "volume-limit";

    @Override
    public int apiVersion() {
        return 1; // the version this plugin was written for, on purpose not StorageApi.VERSION
    }

    @Override
    public String type() {
        return "memory";
    }

    @Override
    public PluginSchema schema() {
        return PluginSchema.builder()
            .properties(List.of(
                PropertySpec.string(PATH, "a path the volumes pretend to live under").asRequired().asFixed()
                        .withPattern("^/.*"),
                PropertySpec.integer(LIMIT, "how many volumes the storage holds").withDefault(100L).withAllowed(List.of()),
                PropertySpec.oneOf("mode", "a mode", List.of("fast", "slow")).withDefault("fast"),
                PropertySpec.bool("verbose", "say more"),
                PropertySpec.number("ratio", "a number"),
                PropertySpec.list("tags", "labels"),
                CommonProperties.content(EnumSet.of(ContentType.IMAGES, ContentType.ISO)),
                CommonProperties.nodes(), CommonProperties.disable(), CommonProperties.shared(),
                CommonProperties.format(List.of(VolumeFormat.RAW, VolumeFormat.QCOW2)), CommonProperties.preallocation(),
                CommonProperties.qcow2Subclusters(), CommonProperties.qcow2ClusterSize()))
            .content(EnumSet.of(ContentType.IMAGES, ContentType.ISO), Set.of(ContentType.IMAGES))
            .formats(List.of(VolumeFormat.RAW, VolumeFormat.QCOW2), VolumeFormat.RAW)
            .build();
    }

    @Override
    public Storage open(StorageConfig config, StorageContext context) {
        return new MemoryStorage(config, context);
    }

    @Override
    public void onAdd(StorageConfig config, StorageContext context) {
        if (config.integer(LIMIT).orElse(100L) < 1) {
            throw StorageException.badInput("%s must be at least 1", LIMIT);
        }
    }

    @Override
    public void onUpdate(StorageConfig before, StorageConfig after, StorageContext context) {
        onAdd(after, context);
    }

    @Override
    public void onDelete(StorageConfig config, StorageContext context) {
        context.console().info("memory storage " + config.id() + " forgotten");
    }
}
