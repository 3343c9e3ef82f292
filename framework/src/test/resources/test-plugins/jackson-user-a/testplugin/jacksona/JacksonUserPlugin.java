package testplugin.jacksona;

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
import com.fasterxml.jackson.databind.ObjectMapper;

/** A test plugin (see TestPlugins): type jackson-user-a. */
public final class JacksonUserPlugin implements StoragePlugin {
    private final String jackson;

    public JacksonUserPlugin() {
        this.jackson = new ObjectMapper().version();
    }

    @Override
    public int apiVersion() {
        return StorageApi.VERSION;
    }

    @Override
    public String type() {
        return "jackson-user-a";
    }

    @Override
    public PluginSchema schema() {
        return PluginSchema.builder()
            .properties(List.of(PropertySpec.string("path", "uses " + jackson + " from " + ObjectMapper.class.getClassLoader().getName()).asRequired()))
            .content(Set.of(ContentType.IMAGES), Set.of(ContentType.IMAGES))
            .formats(List.of(VolumeFormat.RAW), VolumeFormat.RAW)
            .build();
    }

    @Override
    public Storage open(StorageConfig config, StorageContext context) {
        throw StorageException.failed("test plugin jackson-user-a opens no storage");
    }
}
