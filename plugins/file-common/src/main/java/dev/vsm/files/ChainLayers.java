package dev.vsm.files;

import dev.vsm.spi.ImageInfo;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the layers of one volume's chain live and how they are named, read, moved and removed
 * ({@link VolumeChain} runs pve's steps over it): image files beside each other for a file storage
 * ({@link FileChainLayers}); LVs of one volume group would be another. A layer is named by the bare
 * name qcow2 records as a backing name: the volume's own name for {@code current}, a snapshot's
 * name ({@link #layerName}) for the others.
 *
 * <p>Every method depends on {@code dev.vsm.spi} alone, so that an LVM implementation can share
 * {@link VolumeChain} without the file storage's classes.
 */
public interface ChainLayers {
    /** The volume's name as messages show it (pve's {@code volname}). */
    String volname();

    /** The bare name of the layer of {@code snapshot}; null for {@code current}. */
    String layerName(String snapshot);

    /** The snapshot a bare layer name stands for, if it is one of this volume's; empty for others. */
    Optional<String> snapshotOf(String layerName);

    /** Whether the layer exists. */
    boolean exists(String layerName);

    /** Where the layer is, for qemu-img and messages. */
    Path path(String layerName);

    /**
     * The layer's image as its header says: its virtual size and the backing name it records, as
     * written (null or empty: none). Read once per layer, without opening the backing image.
     */
    ImageInfo info(String layerName);

    /** Renames a layer; fails when {@code to} exists. */
    void rename(String from, String to);

    /** Removes a layer. */
    void remove(String layerName);

    /**
     * Makes {@code layerName} (absent) a new, empty qcow2 overlay on {@code backingLayer}, whose
     * bare name it records: made whole under another name, then published under its own.
     */
    void createOverlay(String layerName, String backingLayer);
    /**
     * {@link #createOverlay(String, String)} when the caller knows the backing layer's virtual
     * size, which the new layer takes (an LV must be sized before it is formatted, and under a dry
     * run the backing layer may not carry its name yet).
     */
    default void createOverlay(String layerName, String backingLayer, long virtualSize) {
        createOverlay(layerName, backingLayer);
    }

    /**
     * Whether a layer must be grown before a larger child is committed into it (an LV, sized for
     * its own image: pve's fix #7094); files grow as they are written.
     */
    default boolean growsBeforeCommit() {
        return false;
    }

    /** Grows a layer's image (and what holds it) to {@code virtualSize} bytes; see {@link #growsBeforeCommit}. */
    default void grow(String layerName, long virtualSize) {
        throw new UnsupportedOperationException("layers of " + volname() + " do not grow");
    }

    /**
     * Called before qemu-img writes into a layer other than {@code current} (a commit into the
     * oldest snapshot, the rebase of a snapshot's child), before the operation's intent record: what
     * holds a layer sized for what it holds (an LV) grows so that the whole image of
     * {@code virtualSize} bytes fits ({@code backed}: the layer has a backing image). Files grow as
     * they are written: nothing by default.
     */
    default void beforeWrite(String layerName, long virtualSize, boolean backed) {}

    /**
     * Called under the storage lock once a layer other than {@code current} is written no more: a
     * new {@code current} was made on it, or a merge into it is done. What holds it may shrink to
     * what it holds now. Nothing by default.
     */
    default void frozen(String layerName) {}

    /**
     * Whether two existing layer names are one image: a file that a rename killed half-way left
     * under both its old and its new name ({@code link(2)} done, the old name not yet removed). Never
     * for LVs, which {@code lvrename} renames at once.
     */
    default boolean sameImage(String a, String b) {
        return false;
    }

    /**
     * The intent record of the chain operation under way, or left by one that was killed
     * ({@link VolumeChain}): one line, as {@link #writeIntent} wrote it; empty when there is none.
     * Without a place to keep one (the default) there is never one.
     */
    default Optional<String> readIntent() {
        return Optional.empty();
    }

    /** Writes the intent record atomically (whole or not at all) and durably, before the operation's first change. */
    default void writeIntent(String line) {}

    /** Removes the intent record, after the operation's last change. */
    default void clearIntent() {}
}
