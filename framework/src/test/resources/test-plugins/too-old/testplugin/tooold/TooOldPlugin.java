package testplugin.tooold;

import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageApi;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StoragePlugin;
import java.util.List;
import java.util.Set;

/** A test plugin (see TestPlugins): type too-old. */
public final class TooOldPlugin implements StoragePlugin {
    public TooOldPlugin() {
        
    }

    @Override
    public int apiVersion() {
        return StorageApi.VERSION - StorageApi.AGE - 1;
    }

    @Override
    public String type() {
        return "too-old";
    }

    @Override
    public PluginSchema schema() {
        return PluginSchema.builder()
            .properties(List.of(PropertySpec.string("path", "where the storage lives").asRequired()))
            .content(Set.of(ContentType.IMAGES), Set.of(ContentType.IMAGES))
            .formats(List.of(VolumeFormat.RAW), VolumeFormat.RAW)
            .build();
    }

    @Override
    public Storage open(StorageConfig config, StorageContext context) {
        throw StorageException.failed("test plugin too-old opens no storage");
    }
}
