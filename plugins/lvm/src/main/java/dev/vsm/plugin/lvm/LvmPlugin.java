package dev.vsm.plugin.lvm;

import dev.vsm.lvm.LvmProperties;
import dev.vsm.lvm.LvmScans;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageApi;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.ZeroOut;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * Storage type {@code lvm}: raw VM disks as logical volumes of one LVM volume group (pve's
 * {@code LVMPlugin}). Volumes are {@code vm-<vmid>-disk-<n>} LVs tagged {@code pve-vm-<vmid>};
 * with {@code saferemove} a freed volume is renamed {@code del-<name>}, zeroed and then removed.
 *
 * <p>With {@code snapshot-as-volume-chain} (pve 9, settable; clearing it is refused while a
 * qcow2 volume exists) volumes may be qcow2 images in LVs {@code vm-<vmid>-disk-<n>.qcow2}, each
 * snapshot an LV of the volume's chain (docs/volume-chains.md).
 *
 * <p>Not ported (refused with a message saying so): {@code base} (building the VG on an iSCSI
 * LUN).
 */
public final class LvmPlugin implements StoragePlugin {
    public static final String TYPE = "lvm";

    static final String BASE = "base";
    static final String SAFEREMOVE = "saferemove";
    static final String SAFEREMOVE_STEPSIZE = "saferemove-stepsize";
    static final String SAFEREMOVE_THROUGHPUT = "saferemove_throughput";
    static final String TAGGED_ONLY = "tagged_only";
    static final String SNAPSHOT_AS_VOLUME_CHAIN = "snapshot-as-volume-chain";
    /** vsm's, not pve's: a chain's frozen layers shrink to what their images hold ({@link SnapshotLvSizes}). */
    static final String SHRINK_SNAPSHOT_LVS = "shrink-snapshot-lvs";

    private static final PluginSchema SCHEMA = PluginSchema.builder()
            .properties(LvmProperties.properties(
                    true,
                    PropertySpec.string(BASE, "iSCSI LUN to create the volume group on (not supported by vsm)")
                            .asFixed(),
                    PropertySpec.bool(SAFEREMOVE, "zero-out the data of removed volumes")
                            .withDefault(false),
                    PropertySpec.integer(
                                    SAFEREMOVE_STEPSIZE, "zero-out step in MiB, capped to what the device supports")
                            .withAllowed(List.of("1", "2", "4", "8", "16", "32"))
                            .withDefault(32L),
                    PropertySpec.string(
                                    SAFEREMOVE_THROUGHPUT,
                                    "zero-out throughput for devices that cannot write zeroes (cstream -t; default -10485760)")
                            .withPattern("^" + ZeroOut.THROUGHPUT_REGEX + "$"),
                    PropertySpec.bool(TAGGED_ONLY, "list only volumes tagged pve-vm-<vmid>")
                            .withDefault(false),
                    PropertySpec.bool(
                                    SNAPSHOT_AS_VOLUME_CHAIN, "qcow2 volumes whose snapshots are LVs of a volume chain")
                            .withDefault(false),
                    PropertySpec.bool(
                                    SHRINK_SNAPSHOT_LVS,
                                    "vsm's, not pve's: a snapshot's LV shrinks to what its qcow2 image holds, and"
                                            + " qcow2 images on this storage are made without preallocation"
                                            + " (needs snapshot-as-volume-chain)")
                            .withDefault(false)))
            .content(LvmProperties.CONTENT, EnumSet.of(ContentType.IMAGES))
            .formats(List.of(VolumeFormat.RAW, VolumeFormat.QCOW2), VolumeFormat.RAW)
            .build();

    @Override
    public int apiVersion() {
        return StorageApi.VERSION;
    }

    @Override
    public String type() {
        return TYPE;
    }

    /**
     * The schema. Formats list qcow2 so that a qcow2 request reaches the plugin and gets its
     * answer: pve's {@code snapshot-as-volume-chain option need to be enabled ...} without the
     * option. A storage's own formats are {@link #formats(StorageConfig)}'s.
     */
    @Override
    public PluginSchema schema() {
        return SCHEMA;
    }

    /** pve's {@code get_formats}: raw only; with {@code snapshot-as-volume-chain} qcow2 too, the default. */
    @Override
    public List<VolumeFormat> formats(StorageConfig config) {
        return chains(config) ? List.of(VolumeFormat.QCOW2, VolumeFormat.RAW) : List.of(VolumeFormat.RAW);
    }

    @Override
    public VolumeFormat defaultFormat(StorageConfig config) {
        return chains(config) ? VolumeFormat.QCOW2 : VolumeFormat.RAW;
    }

    private static boolean chains(StorageConfig config) {
        return config.bool(SNAPSHOT_AS_VOLUME_CHAIN, false);
    }

    /** pvesm scan lvm. */
    @Override
    public List<Map<String, Object>> scan(List<String> args, StorageContext context) {
        return LvmScans.volumeGroups(args, context);
    }

    /** The volume group's physical volumes. */
    @Override
    public Map<Path, String> devices(StorageConfig config, StorageContext context) {
        return LvmScans.physicalVolumes(config, context);
    }

    @Override
    public Storage open(StorageConfig config, StorageContext context) {
        checkSupported(config);
        return new LvmStorage(config, context);
    }

    @Override
    public void onAdd(StorageConfig config, StorageContext context) {
        checkSupported(config);
    }

    @Override
    public void onUpdate(StorageConfig before, StorageConfig after, StorageContext context) {
        checkSupported(after);
        if (chains(before) && !chains(after)) {
            boolean qcow2 = new LvmStorage(before, context)
                    .listImages(null).stream().anyMatch(v -> VolumeFormat.QCOW2.is(v.format()));
            if (qcow2) {
                throw StorageException.badInput(
                        "%s - cannot disable 'snapshot-as-volume-chain' while a qcow2 image exists", before.id());
            }
        }
    }

    /** Refuses what this port does not do, before anything is written or run. */
    private static void checkSupported(StorageConfig config) {
        if (config.get(BASE).isPresent()) {
            throw StorageException.badInput(
                    "storage '%s': 'base' is not supported by vsm (it builds the volume group on an "
                            + "iSCSI LUN); create the volume group with vgcreate and add the storage without 'base'",
                    config.id());
        }
        LvmOptions options = LvmOptions.of(config);
        if (options.shrinkSnapshotLvs() && !chains(config)) {
            throw StorageException.badInput(
                    "storage '%s': '%s' needs '%s'; set both or neither",
                    config.id(), SHRINK_SNAPSHOT_LVS, SNAPSHOT_AS_VOLUME_CHAIN);
        }
    }
}
