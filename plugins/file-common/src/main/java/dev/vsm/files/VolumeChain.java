package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.Console;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.SnapshotLayer;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * pve 9's external snapshots ({@code snapshot-as-volume-chain}): a volume is a chain of qcow2
 * images, {@code current} on top, each snapshot a frozen image further down, every backing name a
 * bare, relative one. The steps of pve's {@code volume_snapshot}, {@code volume_snapshot_rollback},
 * {@code volume_snapshot_delete} and {@code volume_snapshot_info} (pve-storage 9.1.7's
 * {@code Plugin.pm}) over {@link ChainLayers}, with qemu-img reached through {@link QemuImg}
 * (whose command lines are the framework's).
 *
 * <p>Crash safety: every operation that takes more than one step first writes an intent record
 * ({@link ChainLayers#writeIntent}: one line naming the operation and its layers) and removes it
 * after its last step. {@link #recover} reads it, under the storage lock, before the next change of
 * the volume (and {@code vsm cleanup}) and finishes or undoes what a killed run left, whichever
 * loses nothing and needs no space: a snapshot is undone unless it was complete; a rollback, a
 * delete by commit and a snapshot's rename are finished; a delete by rebase is finished once the
 * rebase switched the child's backing name, else undone (the chain is whole until then). Each
 * recovery is idempotent: it reads what is on disk and does only what is missing, so a recovery
 * killed in turn is recovered again. docs/volume-chains.md maps every step.
 */
public final class VolumeChain {
    /** More layers than this are refused: a loop of backing names or a chain vsm did not make. */
    static final int MAX_DEPTH = 1024;

    // the operations of an intent record, and the word for the volume's own layer
    private static final String SNAPSHOT = "snapshot";
    private static final String ROLLBACK = "rollback";
    private static final String COMMIT = "delete-commit";
    private static final String REBASE = "delete-rebase";
    private static final String RENAME = "rename-snapshot";
    private static final String CURRENT = "current";

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
            checkSettled();
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

    /**
     * The chain as pve's {@code volume_snapshot_info} (plugin API 15) reports it: {@code current} at
     * order 0, then each snapshot down to the oldest, each with its parent, child, path, virtual
     * size, and the volume id and creation time the storage gives it.
     *
     * @param volid a layer's volume id ({@code <storage>:<layer's volume name>})
     * @param ctime a layer's creation time in seconds, or null when unknown
     */
    public List<SnapshotLayer> snapshotInfo(Function<Layer, String> volid, Function<Layer, Long> ctime) {
        List<Layer> chain = layers();
        List<SnapshotLayer> result = new ArrayList<>();
        for (int i = 0; i < chain.size(); i++) {
            Layer layer = chain.get(i);
            Layer child = i == 0 ? null : chain.get(i - 1);
            result.add(SnapshotLayer.builder(layer.isCurrent() ? SnapshotLayer.CURRENT : layer.snapshot())
                    .order(i)
                    .parent(layer.parent())
                    .child(child == null ? null : child.isCurrent() ? SnapshotLayer.CURRENT : child.snapshot())
                    .path(layer.path())
                    .volid(volid.apply(layer))
                    .virtualSize(layer.virtualSize())
                    .ctime(ctime.apply(layer))
                    .build());
        }
        return result;
    }

    /**
     * Fails while an intent record is there: an operation runs on the chain now, or was killed in
     * it and its layers are not to be used (a guest started on them) until {@link #recover}.
     */
    public void checkSettled() {
        Optional<String> pending = layers.readIntent();
        if (pending.isPresent()) {
            throw StorageException.failed(
                    "volume '%s' is in the middle of '%s' (or was killed in it): its next change or "
                            + "'vsm cleanup' finishes or undoes that",
                    layers.volname(), pending.get());
        }
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
        layers.writeIntent(SNAPSHOT + " " + snapshot);
        try {
            layers.rename(current, target);
            layers.createOverlay(current, target, size);
        } catch (RuntimeException e) {
            try {
                undoSnapshot(snapshot); // what a recovery does, too
                layers.clearIntent();
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
        layers.clearIntent();
        freeze(target);
    }

    /**
     * {@link ChainLayers#frozen}: a failure only warns (the operation is done; what holds the layer
     * keeps its size).
     */
    private void freeze(String layer) {
        try {
            layers.frozen(layer);
        } catch (RuntimeException e) {
            console.warn(String.format("%s: '%s' keeps its size: %s", layers.volname(), layer, e.getMessage()));
        }
    }

    /**
     * Goes back to {@code snapshot}, which must be the newest: {@code current} is removed and a new,
     * empty one made on the snapshot. The newer snapshots, if any, are named in the refusal.
     */
    public void rollback(String snapshot) {
        List<Layer> chain = layers();
        if (indexOf(chain, snapshot) < 0) {
            throw StorageException.badInput(
                    "can't rollback, snapshot '%s' does not exist on '%s'", snapshot, layers.volname());
        }
        if (!snapshot.equals(chain.get(0).parent())) {
            throw StorageException.badInput(
                    "can't rollback, '%s' is not most recent snapshot on '%s'", snapshot, layers.volname());
        }
        layers.writeIntent(ROLLBACK + " " + snapshot);
        finishRollback(snapshot);
        layers.clearIntent();
        freeze(layers.layerName(snapshot));
    }

    /** {@code current} removed if it is there, a new one made on {@code snapshot}'s layer. */
    private void finishRollback(String snapshot) {
        String current = layers.layerName(null);
        String target = layers.layerName(snapshot);
        if (!layers.exists(target)) {
            throw StorageException.failed(
                    "volume '%s': the interrupted rollback's snapshot '%s' is missing ('%s')",
                    layers.volname(), snapshot, layers.path(target));
        }
        if (layers.exists(current)) {
            layers.remove(current);
        }
        layers.createOverlay(current, target, layers.info(target).virtualSize());
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
            layers.beforeWrite(doomed.name(), doomed.virtualSize(), false);
            if (layers.growsBeforeCommit() && child.virtualSize() > doomed.virtualSize()) {
                console.info(String.format(
                        "resize '%s' (%d bytes) to match '%s' (%d bytes)",
                        snapshot, doomed.virtualSize(), childLabel, child.virtualSize()));
                layers.grow(doomed.name(), child.virtualSize());
            }
            layers.writeIntent(COMMIT + " " + snapshot + " " + childLabel);
            try {
                qemuImg.commit(child.path(), VolumeFormat.QCOW2.id());
            } catch (RuntimeException e) {
                console.warn(String.format(
                        "The state of %s is now invalid: the volume's next change or 'vsm cleanup' commits it again",
                        snapshot));
                throw StorageException.failed(e, "error commiting %s to %s; %s", childLabel, snapshot, e.getMessage());
            }
            finishCommit(doomed.name(), child.name());
            layers.clearIntent();
            if (!child.isCurrent()) {
                freeze(child.name()); // the merged layer, under the child's name
            }
        } else {
            console.info(String.format(
                    "%s: deleting snapshot '%s' by rebasing '%s' on top of '%s'",
                    layers.volname(), snapshot, childLabel, doomed.parent()));
            if (!child.isCurrent()) {
                layers.beforeWrite(child.name(), child.virtualSize(), true);
            }
            layers.writeIntent(REBASE + " " + snapshot + " " + childLabel + " " + doomed.parent());
            try {
                qemuImg.rebase(child.path(), layers.layerName(doomed.parent()), VolumeFormat.QCOW2.id());
            } catch (RuntimeException e) {
                try {
                    recover(); // the child still names the snapshot: the chain is whole, only the record goes
                } catch (RuntimeException undo) {
                    e.addSuppressed(undo);
                }
                throw e;
            }
            layers.remove(doomed.name());
            layers.clearIntent();
            if (!child.isCurrent()) {
                freeze(child.name());
            }
        }
    }

    /**
     * The rest of a delete by commit once the child's data is in the doomed layer: the child goes
     * and the doomed layer takes its name. Each part only if it is still to do: a rename killed
     * after its new name was made leaves the image under both names, and the old one goes.
     */
    private void finishCommit(String doomed, String child) {
        boolean doomedThere = layers.exists(doomed);
        boolean childThere = layers.exists(child);
        if (doomedThere && childThere && layers.sameImage(doomed, child)) {
            layers.remove(doomed);
            return;
        }
        if (childThere && doomedThere) {
            layers.remove(child);
        }
        if (doomedThere) {
            layers.rename(doomed, child);
        } else if (!childThere) {
            throw StorageException.failed(
                    "volume '%s': neither '%s' nor '%s' is there to finish the interrupted delete",
                    layers.volname(), layers.path(doomed), layers.path(child));
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
        layers.writeIntent(RENAME + " " + from + " " + to + " " + (child.isCurrent() ? CURRENT : child.snapshot()));
        layers.rename(renamed.name(), target);
        try {
            qemuImg.rebaseUnsafe(child.path(), target, VolumeFormat.QCOW2.id());
        } catch (RuntimeException e) {
            try {
                layers.rename(target, renamed.name());
                layers.clearIntent();
            } catch (RuntimeException undo) {
                e.addSuppressed(undo);
                console.warn(undo.getMessage());
            }
            throw e;
        }
        layers.clearIntent();
    }

    /**
     * Finishes or undoes what a killed chain operation left (see the class comment), as its intent
     * record says, and removes the record; nothing when there is none. Call it under the storage
     * lock before any change of the volume. A record vsm cannot read, or a state it cannot tell, is
     * a failure that leaves everything as it is.
     */
    public void recover() {
        Optional<String> pending = layers.readIntent();
        if (pending.isEmpty()) {
            return;
        }
        String[] words = pending.get().split(" ");
        String op = words[0];
        int args = switch (op) {
            case SNAPSHOT, ROLLBACK -> 1;
            case COMMIT -> 2;
            case REBASE, RENAME -> 3;
            default -> -1;
        };
        if (args < 0 || words.length != args + 1) {
            throw unreadable(pending.get());
        }
        int childAt = op.equals(RENAME) ? 3 : op.equals(COMMIT) || op.equals(REBASE) ? 2 : -1;
        for (int i = 1; i < words.length; i++) {
            if (words[i].equals(CURRENT) ? i != childAt : !isSnapshotName(words[i])) {
                throw unreadable(pending.get());
            }
        }
        String done = switch (op) {
            case SNAPSHOT -> undoSnapshot(words[1]);
            case ROLLBACK -> {
                finishRollback(words[1]);
                yield "finished";
            }
            case COMMIT -> {
                recoverCommit(words[1], words[2]);
                yield "finished";
            }
            case REBASE -> recoverRebase(words[1], words[2], words[3]);
            default -> recoverRename(words[1], words[2], words[3]);
        };
        layers.clearIntent();
        console.warn(String.format("%s: the interrupted '%s' is %s", layers.volname(), pending.get(), done));
    }

    private boolean isSnapshotName(String word) {
        return layers.snapshotOf(layers.layerName(word)).filter(word::equals).isPresent();
    }

    private StorageException unreadable(String line) {
        return StorageException.failed(
                "volume '%s': its intent record '%s' is none vsm wrote; move it away once the chain is checked",
                layers.volname(), line);
    }

    /** The layer of a word of the record: {@code current} or a snapshot. */
    private String layerOf(String word) {
        return layers.layerName(word.equals(CURRENT) ? null : word);
    }

    /** A snapshot is undone unless {@code current} already stands on it. */
    private String undoSnapshot(String snapshot) {
        String current = layers.layerName(null);
        String target = layers.layerName(snapshot);
        boolean currentThere = layers.exists(current);
        boolean targetThere = layers.exists(target);
        if (currentThere && targetThere) {
            if (layers.sameImage(current, target)) {
                layers.remove(target); // the rename made its new name only
                return "undone";
            }
            if (target.equals(layers.info(current).backingFile())) {
                return "finished";
            }
            throw StorageException.failed(
                    "volume '%s': '%s' is no layer of the interrupted snapshot '%s'; left as it is",
                    layers.volname(), layers.path(target), snapshot);
        }
        if (targetThere) {
            layers.rename(target, current);
        } else if (!currentThere) {
            throw StorageException.failed(
                    "volume '%s': neither '%s' nor its snapshot '%s' is there",
                    layers.volname(), layers.path(current), snapshot);
        }
        return "undone";
    }

    /**
     * A delete by commit is finished: the commit again while the child is there (it writes the
     * same data into the same clusters, and reads through the child are unchanged throughout),
     * then the rest ({@link #finishCommit}).
     */
    private void recoverCommit(String snapshot, String childWord) {
        String doomed = layers.layerName(snapshot);
        String child = layerOf(childWord);
        if (layers.exists(doomed) && layers.exists(child) && !layers.sameImage(doomed, child)) {
            qemuImg.commit(layers.path(child), VolumeFormat.QCOW2.id());
        }
        finishCommit(doomed, child);
    }

    /** A delete by rebase is finished once the child names the parent, else undone (nothing to do). */
    private String recoverRebase(String snapshot, String childWord, String parent) {
        String doomed = layers.layerName(snapshot);
        String child = layerOf(childWord);
        if (layers.exists(child)
                && layers.layerName(parent).equals(layers.info(child).backingFile())) {
            if (layers.exists(doomed)) {
                layers.remove(doomed);
            }
            return "finished";
        }
        return "undone";
    }

    /** A snapshot's rename is finished once its new name exists: the child names it, the old name goes. */
    private String recoverRename(String from, String to, String childWord) {
        String old = layers.layerName(from);
        String target = layers.layerName(to);
        String child = layerOf(childWord);
        if (!layers.exists(target)) {
            return "undone"; // never renamed
        }
        if (!target.equals(layers.info(child).backingFile())) {
            qemuImg.rebaseUnsafe(layers.path(child), target, VolumeFormat.QCOW2.id());
        }
        if (layers.exists(old) && layers.sameImage(old, target)) {
            layers.remove(old);
        }
        return "finished";
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
