package dev.vsm.plugin.lvmthin;

import dev.vsm.lvm.LvmProperties;
import dev.vsm.lvm.LvmScans;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageApi;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.spi.VolumeFormat;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Storage type {@code lvmthin}: raw VM disks as thin volumes of one LVM thin pool (pve's
 * {@code LvmThinPlugin}). Volumes are {@code vm-<vmid>-disk-<n>} (and {@code base-...} templates);
 * snapshots are read-only thin snapshots {@code snap_<volume>_<name>}; linked clones are writable
 * thin snapshots of a base volume.
 *
 * <p>Beyond pve: {@code max-overprovision}, a ratio that caps the sum of the pool's thin volume
 * sizes (see {@link OverprovisionGuard}), and warnings when the pool's data or metadata is more
 * than 80% full.
 */
public final class LvmThinPlugin implements StoragePlugin {
    public static final String TYPE = "lvmthin";

    static final String THINPOOL = "thinpool";
    static final String MAX_OVERPROVISION = "max-overprovision";
    /** A ratio above zero, written plainly ({@code 1.5}, {@code 4}). */
    static final String POSITIVE_RATIO = "^\\+?(?:[0-9]*[1-9][0-9]*(?:\\.[0-9]*)?|[0-9]*\\.[0-9]*[1-9][0-9]*)$";

    private static final PluginSchema SCHEMA = PluginSchema.builder()
            .properties(LvmProperties.properties(
                    false,
                    LvmProperties.lvmName(THINPOOL, "the LVM thin pool LV in the volume group"),
                    PropertySpec.number(
                                    MAX_OVERPROVISION,
                                    "refuse allocations, clones and resizes that would make the thin volumes' "
                                            + "sizes add up to more than this many times the pool size (e.g. 2.5; none when absent)")
                            .withPattern(POSITIVE_RATIO)))
            .content(LvmProperties.CONTENT, LvmProperties.CONTENT)
            .formats(List.of(VolumeFormat.RAW), VolumeFormat.RAW)
            .build();

    @Override
    public int apiVersion() {
        return StorageApi.VERSION;
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public PluginSchema schema() {
        return SCHEMA;
    }

    /** pvesm scan lvmthin. */
    @Override
    public List<Map<String, Object>> scan(List<String> args, StorageContext context) {
        return LvmScans.thinPools(args, context);
    }

    /** The volume group's physical volumes. */
    @Override
    public Map<Path, String> devices(StorageConfig config, StorageContext context) {
        return LvmScans.physicalVolumes(config, context);
    }

    @Override
    public Storage open(StorageConfig config, StorageContext context) {
        return new LvmThinStorage(config, context);
    }

    /** Checks the section (a positive {@code max-overprovision}) before it is written. */
    @Override
    public void onAdd(StorageConfig config, StorageContext context) {
        ThinOptions.of(config);
    }

    @Override
    public void onUpdate(StorageConfig before, StorageConfig after, StorageContext context) {
        ThinOptions.of(after);
    }
}
