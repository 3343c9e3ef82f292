package dev.vsm.spi;

/**
 * The optional operations of a {@link Storage}, the one way a storage declares what it can do
 * beyond the required methods. A storage that implements one overrides its default method(s) and
 * lists it in {@link Storage#operations()}; the engine checks that set before it calls, so a
 * storage that does not list an operation is refused with {@link #unsupportedBy} and its method is
 * never called. The default methods refuse in the same words, for a storage that lists an
 * operation without implementing it.
 *
 * <p>Which volumes of such a storage support a {@link Feature} (a snapshot of a raw file, a clone
 * of a volume that is no base) the storage answers in {@link Storage#hasFeature}; a feature whose
 * {@link Feature#operation()} the storage does not list is never reported.
 *
 * <p>New optional operations join this enum together with their default method, so that jars
 * built against an older SPI keep loading ({@link StorageApi}).
 */
public enum Operation {
    /** {@link Storage#volumeResize}. */
    RESIZE("resize volumes"),
    /** {@link Storage#createBase}: make a volume a base (template) volume. */
    CREATE_BASE("create base volumes"),
    /** {@link Storage#cloneImage}: a linked clone of a base volume. */
    CLONE("clone volumes"),
    /** {@link Storage#wipeVolume}: zero a volume's data in place. */
    WIPE("zero volumes in place: 'vsm wipe' works on block-device volumes (lvm)"),
    /** {@link Storage#renameVolume}: give a volume another owner or name. */
    RENAME("rename volumes"),
    /**
     * {@link Storage#volumeSnapshot}, {@link Storage#volumeSnapshotDelete} and
     * {@link Storage#volumeSnapshotRollback}: snapshots of volumes. Which volumes can have them,
     * and whether a snapshot can be cloned ({@link Storage#cloneImage(VolumeName, int, String)}),
     * the storage's {@link Storage#hasFeature} says.
     */
    SNAPSHOT("snapshot volumes"),
    /**
     * {@link Storage#importImage}: a new volume from an image, with {@code qemu-img convert}
     * ({@code vsm import}, {@code vsm copy}). Streams need no operation: a storage declares them
     * with {@link Storage#exportFormats} and {@link Storage#importFormats}.
     */
    IMPORT_IMAGE("import images"),
    /**
     * {@link Storage#updateVolumeNotes} and {@link Storage#updateVolumeProtected}: set a volume's
     * notes and protection ({@code vsm updateattributes}). Which volumes can have them the storage
     * says when it is asked.
     */
    UPDATE_ATTRIBUTES("set notes and protection of volumes"),
    /**
     * {@link Storage#importMetadata}: what a guest described by an import volume (an OVF or OVA)
     * should be created with ({@code vsm import-metadata}, pve's {@code import-metadata}).
     */
    IMPORT_METADATA("describe guests to import (import-metadata)");

    private final String refusal;

    Operation(String refusal) {
        this.refusal = refusal;
    }

    /**
     * The bad-input error for a storage that lacks this operation, naming the storage, its plugin
     * (the type) and what it cannot do: {@code storage 'files' (type dir) cannot zero volumes in place: ...}.
     */
    public StorageException unsupportedBy(StorageConfig config) {
        return StorageException.badInput("storage '%s' (type %s) cannot %s", config.id(), config.type(), refusal);
    }
}
