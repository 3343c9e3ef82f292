package dev.vsm.spi;

/**
 * The optional operations of a {@link Storage}: each has a default method that refuses, and a
 * storage that implements one overrides that method and lists the operation in
 * {@link Storage#operations()}, from which the default {@link Storage#hasFeature} answers.
 *
 * <p>New optional operations (snapshots, rename, export and import) join this enum together
 * with their default method, so that jars built against an older SPI keep loading.
 */
public enum Operation {
    /** {@link Storage#volumeResize}. */
    RESIZE,
    /** {@link Storage#createBase}: make a volume a base (template) volume. */
    CREATE_BASE,
    /** {@link Storage#cloneImage}: a linked clone of a base volume. */
    CLONE,
    /** {@link Storage#wipeVolume}: zero a volume's data in place. */
    WIPE,
    /** {@link Storage#renameVolume}: give a volume another owner or name. */
    RENAME,
    /**
     * {@link Storage#volumeSnapshot}, {@link Storage#volumeSnapshotDelete} and
     * {@link Storage#volumeSnapshotRollback}: snapshots of volumes. Which volumes can have them,
     * and whether a snapshot can be cloned ({@link Storage#cloneImage(VolumeName, int, String)}),
     * the storage's {@link Storage#hasFeature} says.
     */
    SNAPSHOT,
    /**
     * {@link Storage#importImage}: a new volume from an image, with {@code qemu-img convert}
     * ({@code vsm import}, {@code vsm copy}). Streams need no operation: a storage declares them
     * with {@link Storage#exportFormats} and {@link Storage#importFormats}.
     */
    IMPORT_IMAGE
}
