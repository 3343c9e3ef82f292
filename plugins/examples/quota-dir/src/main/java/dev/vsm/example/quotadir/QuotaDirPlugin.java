package dev.vsm.example.quotadir;

import dev.vsm.files.DirLayout;
import dev.vsm.spi.CommonProperties;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageApi;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.spi.VolumeFormat;
import java.util.List;
import java.util.Set;

/**
 * Storage type {@code quota-dir}: VM disk images as files under a directory, as the {@code dir}
 * type keeps them ({@code <path>/images/<vmid>/vm-<vmid>-disk-<n>.<format>}), with a quota per
 * VM: {@code vm-quota} caps the sum of the virtual sizes of one VM's disks on the storage, and an
 * alloc or resize that would exceed it is refused before anything is created.
 *
 * <p>An example of a drop-in plugin: it compiles against the SPI only, and ships as one jar.
 */
public final class QuotaDirPlugin implements StoragePlugin {
    public static final String TYPE = "quota-dir";
    public static final String VM_QUOTA = "vm-quota";
    static final List<VolumeFormat> FORMATS = List.of(VolumeFormat.RAW, VolumeFormat.QCOW2);

    private static final PluginSchema SCHEMA = PluginSchema.builder()
            .properties(List.of(
                    PropertySpec.string(DirLayout.PATH, "the directory holding the images")
                            .asRequired()
                            .asFixed()
                            .withPattern("^/[^;()]+"),
                    PropertySpec.string(
                                    VM_QUOTA,
                                    "the most one VM's disks on this storage may add up to (virtual size), as <n>K|M|G|T")
                            .asRequired()
                            .withPattern(Quota.PATTERN),
                    CommonProperties.content(Set.of(ContentType.IMAGES)),
                    CommonProperties.format(FORMATS).withDefault(VolumeFormat.QCOW2.id()),
                    CommonProperties.preallocation(),
                    CommonProperties.qcow2Subclusters(),
                    CommonProperties.qcow2ClusterSize(),
                    CommonProperties.nodes(),
                    CommonProperties.disable()))
            .content(Set.of(ContentType.IMAGES), Set.of(ContentType.IMAGES))
            .formats(FORMATS, VolumeFormat.QCOW2)
            .build();

    @Override
    public int apiVersion() {
        return StorageApi.VERSION; // javac copies the value this jar was built against
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public PluginSchema schema() {
        return SCHEMA;
    }

    @Override
    public Storage open(StorageConfig config, StorageContext context) {
        return new QuotaDirStorage(config, context);
    }

    /** Refuses a section whose quota cannot be read, before it is written. */
    @Override
    public void onAdd(StorageConfig config, StorageContext context) {
        Quota.of(config);
    }

    @Override
    public void onUpdate(StorageConfig before, StorageConfig after, StorageContext context) {
        Quota.of(after);
    }
}
