package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.Console;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * pve 9's external snapshots ({@code snapshot-as-volume-chain}): a volume is a chain of qcow2
 * images, {@code current} on top, each snapshot a frozen image further down, every backing name a
 * bare, relative one. The steps of pve's {@code volume_snapshot}, {@code volume_snapshot_rollback},
 * {@code volume_snapshot_delete} and {@code volume_snapshot_info} (pve-storage 9.1.7's
 * {@code Plugin.pm}) over {@link ChainLayers}, with qemu-img reached through {@link QemuImg}
 * (whose command lines are the framework's).
 *
 * <p>Each step leaves one of few states behind if vsm is killed between two of them, each one a
 * later {@code vsm cleanup} can tell from the names alone: a new overlay is made whole under a
 * temporary name and published under {@code current}'s ({@link ChainLayers#createOverlay}), so a
 * snapshot or rollback interrupted after {@code current} was renamed or removed leaves its newest
 * snapshot without {@code current} (finished by an empty overlay on it); a delete by rebase leaves
 * a valid chain until its last step, the removal of the snapshot no layer names any more. A delete
 * by commit (the oldest snapshot) is not yet safe between the commit and the rename that follows it:
 * pve's "the state of S is now invalid".
 */
public final class VolumeChain {
    /** More layers than this are refused: a loop of backing names or a chain vsm did not make. */
    static final int MAX_DEPTH = 1024;

    private final ChainLayers layers;
    private final QemuImg qemuImg;
    private final Console console;

    public VolumeChain(ChainLayers layers, QemuImg qemuImg, Console console) {
        this.layers = requireNonNull(layers, "layers");
        this.qemuImg = requireNonNull(qemuImg, "qemuImg");
        this.console = requireNonNull(console, "console");
    }

    /**
     * One image of the chain.
     *
     * @param snapshot    the snapshot it holds; null for {@code current}
     * @param name        its bare name
     * @param parent      the snapshot below it, if it is one of the volume's (null: none, or a linked clone's base)
     * @param virtualSize its virtual size in bytes
     */
    public record Layer(String snapshot, String name, Path path, String parent, long virtualSize) {
        public boolean isCurrent() {
            return snapshot == null;
        }
    }

    /**
     * The chain, top first: {@code current}, then each snapshot down to the oldest (pve's
     * {@code volume_snapshot_info}, whose {@code order} is the index here). A backing name that is
     * none of the volume's snapshots ends it (a linked clone's base). Bad input when the volume
     * does not exist.
     */
    public List<Layer> layers() {
        String top = layers.layerName(null);
        if (!layers.exists(top)) {
            throw StorageException.badInput("no such volume '%s'", layers.volname());
        }
        List<Layer> chain = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        String name = top;
        String snapshot = null;
        while (name != null) {
            if (!seen.add(name) || chain.size() >= MAX_DEPTH) {
                throw StorageException.failed(
                        "volume '%s': its backing chain loops or is deeper than %d at '%s'",
                        layers.volname(), MAX_DEPTH, name);
            }
            ImageInfo info = layers.info(name);
            Optional<String> parent = Optional.ofNullable(info.backingFile())
                    .filter(b -> !b.isEmpty())
                    .flatMap(layers::snapshotOf);
            chain.add(new Layer(snapshot, name, layers.path(name), parent.orElse(null), info.virtualSize()));
            snapshot = parent.orElse(null);
            name = parent.map(layers::layerName).orElse(null);
            if (name != null && !layers.exists(name)) {
                throw StorageException.failed(
                        "volume '%s': snapshot '%s' is missing ('%s')", layers.volname(), snapshot, layers.path(name));
            }
        }
        return chain;
    }

    /** The snapshots' names, oldest first. */
    public List<String> snapshots() {
        List<String> names = new ArrayList<>();
        for (Layer layer : layers()) {
            if (!layer.isCurrent()) {
                names.add(0, layer.snapshot());
            }
        }
        return names;
    }

    /**
     * Takes snapshot {@code snapshot}: {@code current} becomes the snapshot's layer and a new, empty
     * {@code current} is made on it. If the new one cannot be made, the snapshot's layer becomes
     * {@code current} again.
     */
    public void snapshot(String snapshot) {
        long size = layers().get(0).virtualSize();
        String current = layers.layerName(null);
        String target = layers.layerName(snapshot);
        if (layers.exists(target)) {
            throw StorageException.badInput("target snapshot '%s' already exists", snapshot);
        }
        layers.rename(current, target);
        try {
            layers.createOverlay(current, target, size);
        } catch (RuntimeException e) {
            try {
                layers.rename(target, current);
            } catch (RuntimeException undo) {
                e.addSuppressed(undo);
                console.warn(undo.getMessage());
            }
            throw StorageException.failed(
                    e,
                    "can't allocate new volume %s with %s backing image - %s",
                    layers.volname(),
                    snapshot,
                    e.getMessage());
        }
    }

    /**
     * Goes back to {@code snapshot}, which must be the newest: {@code current} is removed and a new,
     * empty one made on the snapshot. The newer snapshots, if any, are named in the refusal.
     */
    public void rollback(String snapshot) {
        List<Layer> chain = layers();
        Layer target = find(chain, snapshot)
                .orElseThrow(() -> StorageException.badInput(
                        "can't rollback, snapshot '%s' does not exist on '%s'", snapshot, layers.volname()));
        if (!snapshot.equals(chain.get(0).parent())) {
            throw StorageException.badInput(
                    "can't rollback, '%s' is not most recent snapshot on '%s'", snapshot, layers.volname());
        }
        String current = layers.layerName(null);
        layers.remove(current);
        layers.createOverlay(current, target.name(), target.virtualSize());
    }

    /**
     * Deletes {@code snapshot}. The oldest: its child's data is committed into it and it takes the
     * child's name, so the child's child still names a valid backing image. Any other: its child is
     * rebased on its parent (a safe rebase, copying what differs), then it is removed.
     */
    public void delete(String snapshot) {
        List<Layer> chain = layers();
        int at = indexOf(chain, snapshot);
        if (at < 0) {
            throw StorageException.badInput("snapshot '%s' does not exist on '%s'", snapshot, layers.volname());
        }
        Layer doomed = chain.get(at);
        Layer child = chain.get(at - 1);
        String childLabel = child.isCurrent() ? "current" : child.snapshot();
        if (doomed.parent() == null) {
            console.info(String.format(
                    "%s: deleting snapshot '%s' by commiting snapshot '%s'", layers.volname(), snapshot, childLabel));
            if (layers.growsBeforeCommit() && child.virtualSize() > doomed.virtualSize()) {
                console.info(String.format(
                        "resize '%s' (%d bytes) to match '%s' (%d bytes)",
                        snapshot, doomed.virtualSize(), childLabel, child.virtualSize()));
                layers.grow(doomed.name(), child.virtualSize());
            }
            try {
                qemuImg.commit(child.path(), VolumeFormat.QCOW2.id());
            } catch (RuntimeException e) {
                console.warn(String.format(
                        "The state of %s is now invalid. Don't try to clone or rollback it. You can only try to delete it again later",
                        snapshot));
                throw StorageException.failed(e, "error commiting %s to %s; %s", childLabel, snapshot, e.getMessage());
            }
            layers.remove(child.name());
            layers.rename(doomed.name(), child.name());
        } else {
            console.info(String.format(
                    "%s: deleting snapshot '%s' by rebasing '%s' on top of '%s'",
                    layers.volname(), snapshot, childLabel, doomed.parent()));
            qemuImg.rebase(child.path(), layers.layerName(doomed.parent()), VolumeFormat.QCOW2.id());
            layers.remove(doomed.name());
        }
    }

    /** The snapshots' layers, for a free of the whole volume: oldest first, as pve removes them. */
    public List<String> snapshotLayers() {
        List<String> names = new ArrayList<>();
        for (Layer layer : layers()) {
            if (!layer.isCurrent()) {
                names.add(0, layer.name());
            }
        }
        return names;
    }

    /** Whether {@code current} has a snapshot below it (pve refuses to rename such a volume). */
    public boolean hasSnapshots() {
        return layers().get(0).parent() != null;
    }

    /**
     * The snapshots newer than {@code snapshot}, newest first: what keeps a rollback to it from
     * being possible (pve's {@code volume_rollback_is_possible} and its {@code blockers}); empty when
     * it is the newest. Bad input when the volume has no such snapshot.
     */
    public List<String> rollbackBlockers(String snapshot) {
        List<Layer> chain = layers();
        int at = indexOf(chain, snapshot);
        if (at < 0) {
            throw StorageException.badInput(
                    "can't rollback, snapshot '%s' does not exist on '%s'", snapshot, layers.volname());
        }
        List<String> blockers = new ArrayList<>();
        for (int i = 1; i < at; i++) {
            blockers.add(chain.get(i).snapshot());
        }
        return blockers;
    }

    /**
     * Renames snapshot {@code from} to {@code to} (pve's {@code rename_snapshot}): its layer takes
     * the new name, then the layer above it records that name as its backing name (an unsafe
     * rebase: the data is the same). pve renames the file alone, which leaves the layer above
     * naming an image that no longer exists. If the rebase fails, the layer gets its old name back.
     */
    public void renameSnapshot(String from, String to) {
        List<Layer> chain = layers();
        int at = indexOf(chain, from);
        if (at < 0) {
            throw StorageException.badInput("snapshot '%s' does not exist on '%s'", from, layers.volname());
        }
        String target = layers.layerName(to);
        if (layers.exists(target)) {
            throw StorageException.badInput("target snapshot '%s' already exists", to);
        }
        Layer renamed = chain.get(at);
        Layer child = chain.get(at - 1);
        layers.rename(renamed.name(), target);
        try {
            qemuImg.rebaseUnsafe(child.path(), target, VolumeFormat.QCOW2.id());
        } catch (RuntimeException e) {
            try {
                layers.rename(target, renamed.name());
            } catch (RuntimeException undo) {
                e.addSuppressed(undo);
                console.warn(undo.getMessage());
            }
            throw e;
        }
    }

    private static Optional<Layer> find(List<Layer> chain, String snapshot) {
        int at = indexOf(chain, snapshot);
        return at < 0 ? Optional.empty() : Optional.of(chain.get(at));
    }

    private static int indexOf(List<Layer> chain, String snapshot) {
        for (int i = 1; i < chain.size(); i++) {
            if (chain.get(i).snapshot().equals(snapshot)) {
                return i;
            }
        }
        return -1;
    }
}
