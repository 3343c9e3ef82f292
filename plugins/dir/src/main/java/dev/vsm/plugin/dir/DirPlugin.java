package dev.vsm.plugin.dir;

import dev.vsm.files.ChainSnapshots;
import dev.vsm.files.DirLayout;
import dev.vsm.spi.CommonProperties;
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
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Storage type {@code dir}: volumes as files in a directory tree (pve's {@code DirPlugin}).
 * Images are raw, qcow2 or vmdk files (or subvol directories) in {@code <path>/images/<vmid>/};
 * ISO images, container templates, backups, snippets and import sources live in their own
 * sub-directories.
 */
public final class DirPlugin implements StoragePlugin {
    public static final String TYPE = "dir";
    public static final List<VolumeFormat> FORMATS = List.of(VolumeFormat.values());

    static final String MKDIR = "mkdir";
    static final String CREATE_BASE_PATH = "create-base-path";
    static final String CREATE_SUBDIRS = "create-subdirs";
    static final String IS_MOUNTPOINT = "is_mountpoint";
    static final String SNAPSHOT_AS_VOLUME_CHAIN = ChainSnapshots.PROPERTY;

    /**
     * pve's {@code pve-storage-path} ({@code ^/[^;()]+}), and beyond it: not the root directory
     * (only slashes and dots: {@code /}, {@code //}, {@code /./}) and no {@code ..} component, so
     * that no configuration makes vsm create {@code images/} and friends directly under {@code /}
     * or above the directory it names; nor in or under {@code /proc}, {@code /sys}, {@code /dev} or
     * {@code /run} (read as the file system reads it: {@code //} and {@code /./} are one slash),
     * the kernel's and the running system's file systems, where guests' disks have no place.
     */
    static final String PATH_PATTERN =
            "^/(?![/.]*$)(?!(?:.*/)?\\.\\.(?:/.*)?$)(?!(?:\\.?/)*(?:proc|sys|dev|run)(?:/|$))[^;()]+$";

    /** The system directories no storage path may be in or under (see {@link #PATH_PATTERN}). */
    static final List<String> SYSTEM_DIRS = List.of("/proc", "/sys", "/dev", "/run");

    /** pve's check of a new directory storage's path (DirPlugin check_config). */
    private static final Pattern NEW_PATH = Pattern.compile("/[-/a-zA-Z0-9_.@]+");

    private static final PluginSchema SCHEMA = PluginSchema.builder()
            .properties(List.of(
                    PropertySpec.string(DirLayout.PATH, "the directory holding the storage")
                            .asRequired()
                            .asFixed()
                            .withPattern(PATH_PATTERN),
                    PropertySpec.list(
                                    DirLayout.CONTENT_DIRS,
                                    "sub-directory per content type, as <content>=<relative path>")
                            .withPattern(
                                    "^(?:images|rootdir|vztmpl|iso|backup|snippets|import)=(?=.{1,1022}$)(?!.*[^/]{255})"
                                            + "(?!.*\\.\\.).*[^.]$"),
                    CommonProperties.nodes(),
                    CommonProperties.shared(),
                    CommonProperties.disable(),
                    CommonProperties.content(EnumSet.allOf(ContentType.class)),
                    CommonProperties.format(FORMATS).withDefault(VolumeFormat.RAW.id()),
                    CommonProperties.preallocation(),
                    CommonProperties.qcow2Subclusters(),
                    CommonProperties.qcow2ClusterSize(),
                    PropertySpec.bool(
                                    MKDIR,
                                    "deprecated: create the path and the content sub-directories (use create-base-path and create-subdirs)")
                            .withDefault(true),
                    PropertySpec.bool(CREATE_BASE_PATH, "create the path if it does not exist")
                            .withDefault(true),
                    PropertySpec.bool(CREATE_SUBDIRS, "create the content sub-directories")
                            .withDefault(true),
                    PropertySpec.string(
                                    IS_MOUNTPOINT,
                                    "yes: the path must be a mount point; no: no check; else the mount point to check")
                            .withDefault("no"),
                    PropertySpec.bool(
                                    SNAPSHOT_AS_VOLUME_CHAIN,
                                    "qcow2 snapshots as external snapshot files in a backing chain (set when the storage is added)")
                            .withDefault(false)
                            .asFixed(),
                    PropertySpec.string("prune-backups", "backup retention, as keep-last=N,keep-daily=N,..."),
                    PropertySpec.integer(
                            "max-protected-backups", "how many protected backups a guest may have (-1: unlimited)"),
                    CommonProperties.bwlimit()))
            .content(EnumSet.allOf(ContentType.class), EnumSet.of(ContentType.IMAGES, ContentType.ROOTDIR))
            .formats(FORMATS, VolumeFormat.RAW)
            .build();

    /** The content of a section that names none. */
    static Set<ContentType> schemaDefaultContent() {
        return SCHEMA.defaultContent();
    }

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

    @Override
    public Storage open(StorageConfig config, StorageContext context) {
        checkSupported(config);
        return new DirStorage(config, context);
    }

    @Override
    public void onAdd(StorageConfig config, StorageContext context) {
        String path = config.string(DirLayout.PATH).orElse("");
        if (!NEW_PATH.matcher(path).matches()) {
            throw StorageException.badInput("illegal path for directory storage: %s", path);
        }
        checkSupported(config);
        if (config.get(MKDIR).isPresent()) {
            noteMkdirDeprecated(config, context);
        }
    }

    @Override
    public void onUpdate(StorageConfig before, StorageConfig after, StorageContext context) {
        checkSupported(after);
        if (after.get(MKDIR).isPresent() && !after.get(MKDIR).equals(before.get(MKDIR))) {
            noteMkdirDeprecated(after, context);
        }
    }

    private static void noteMkdirDeprecated(StorageConfig config, StorageContext context) {
        context.console()
                .warn("NOTE: The 'mkdir' option set for '" + config.id()
                        + "' is deprecated. Use 'create-base-path' or 'create-subdirs' instead.");
    }

    /** Refuses bad content-dirs before anything is written or run. */
    private static void checkSupported(StorageConfig config) {
        DirLayout.of(config);
    }
}
