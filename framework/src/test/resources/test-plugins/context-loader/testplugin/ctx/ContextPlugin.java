package testplugin.ctx;

import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageApi;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StoragePlugin;
import java.util.List;
import java.util.Set;

/** A test plugin (see TestPlugins) whose every call looks a class of its own jar up through the context class loader. */
public final class ContextPlugin implements StoragePlugin {
    public ContextPlugin() {
        Hidden.lookUp();
    }

    @Override
    public int apiVersion() {
        return StorageApi.VERSION;
    }

    @Override
    public String type() {
        return Hidden.lookUp().equals("Hidden") ? "ctx" : "none";
    }

    @Override
    public PluginSchema schema() {
        Hidden.lookUp();
        return PluginSchema.builder()
            .properties(List.of())
            .content(Set.of(ContentType.IMAGES), Set.of(ContentType.IMAGES))
            .formats(List.of(VolumeFormat.RAW), VolumeFormat.RAW)
            .build();
    }

    @Override
    public Storage open(StorageConfig config, StorageContext context) {
        Hidden.lookUp();
        return new ContextStorage(config);
    }
}
