package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.ImageOptions;
import dev.vsm.spi.SnapshotLayer;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * External qcow2 snapshots of a file storage with {@code snapshot-as-volume-chain} (pve 9): each
 * snapshot of {@code <vmid>/<name>.qcow2} is the file {@code snap-<snapshot>-<name>.qcow2} beside
 * it, and the volume a chain of them ({@link VolumeChain}, over {@link FileChainLayers}). The
 * same entry points and refusals as {@link Qcow2Snapshots}, the internal kind.
 */
public final class ChainSnapshots {
    /** The storage property that turns them on (pve's, fixed when the storage is added). */
    public static final String PROPERTY = "snapshot-as-volume-chain";

    private final DirLayout layout;
    private final StorageContext context;
    private final Supplier<ImageOptions> options;

    public ChainSnapshots(DirLayout layout, StorageContext context, Supplier<ImageOptions> options) {
        this.layout = requireNonNull(layout, "layout");
        this.context = requireNonNull(context, "context");
        this.options = requireNonNull(options, "options");
    }

    public void create(VolumeName volume, String snapshot) {
        changing(volume, "can't snapshot this image format").snapshot(snapshot);
    }

    public void rollback(VolumeName volume, String snapshot) {
        changing(volume, "can't rollback snapshot this image format").rollback(snapshot);
    }

    public void delete(VolumeName volume, String snapshot) {
        changing(volume, "can't delete snapshot for this image format").delete(snapshot);
    }

    /** The snapshots' names, oldest first; none for a volume that is no qcow2 image file. */
    public List<String> list(VolumeName volume) {
        if (!isChainImage(volume)) {
            return List.of();
        }
        return chainOf(volume).snapshots();
    }

    /** The files of a volume's snapshots, oldest first; none for a volume that has none. */
    public List<Path> snapshotFiles(VolumeName volume) {
        if (!isChainImage(volume)) {
            return List.of();
        }
        VolumeChain chain = chainOf(volume);
        Path dir = layout.path(volume).getParent();
        return chain.snapshotLayers().stream().map(dir::resolve).toList();
    }

    /**
     * Every layer of the volume's chain, {@code current} first (pve's {@code volume_snapshot_info}
     * with {@code snapshot-as-volume-chain}): order, parent, child, file, volume id
     * ({@code <storage>:<vmid>/<layer's file>}), virtual size, and as creation time the file's
     * status-change time, which the rename that froze it as a snapshot set. None for a volume that
     * is no qcow2 image file.
     */
    public List<SnapshotLayer> info(String storageId, VolumeName volume) {
        if (!isChainImage(volume)) {
            return List.of();
        }
        return chainOf(volume)
                .snapshotInfo(
                        layer -> storageId + ":"
                                + (layer.isCurrent() ? volume.volname() : volume.vmid() + "/" + layer.name()),
                        layer -> changeTime(layer.path()));
    }

    /**
     * Grows the layer of {@code snapshot} to {@code sizeBytes} with {@code qemu-img resize} (pve's
     * {@code volume_resize} with a snapshot name), preallocating as the storage's options say; a
     * manager does it before it commits a larger child into the layer.
     */
    public void resize(VolumeName volume, String snapshot, long sizeBytes) {
        VolumeChain.Layer layer = changing(volume, "can't resize this image format").layers().stream()
                .filter(l -> snapshot.equals(l.snapshot()))
                .findFirst()
                .orElseThrow(() ->
                        StorageException.badInput("snapshot '%s' does not exist on '%s'", snapshot, volume.volname()));
        context.qemuImg().resize(layer.path(), VolumeFormat.QCOW2.id(), sizeBytes, options.get());
    }

    /** Renames snapshot {@code from} to {@code to} ({@link VolumeChain#renameSnapshot}). */
    public void renameSnapshot(VolumeName volume, String from, String to) {
        changing(volume, "can't rename snapshot of this image format").renameSnapshot(from, to);
    }

    /** The snapshots newer than {@code snapshot}, which keep a rollback to it from being possible. */
    public List<String> rollbackBlockers(VolumeName volume, String snapshot) {
        return chain(volume, "can't rollback snapshot this image format").rollbackBlockers(snapshot);
    }

    /** The file of {@code snapshot}'s layer; bad input when the volume has no such snapshot. */
    public Path snapshotFile(VolumeName volume, String snapshot) {
        return chain(volume, "can't snapshot this image format").layers().stream()
                .filter(l -> snapshot.equals(l.snapshot()))
                .findFirst()
                .map(VolumeChain.Layer::path)
                .orElseThrow(() ->
                        StorageException.badInput("snapshot '%s' does not exist on '%s'", snapshot, volume.volname()));
    }

    /** A file's status-change time in seconds, read without following links; null when it cannot be read. */
    static Long changeTime(Path file) {
        try {
            Object ctime = Files.getAttribute(file, "unix:ctime", LinkOption.NOFOLLOW_LINKS);
            return ctime instanceof FileTime t ? Long.valueOf(t.to(TimeUnit.SECONDS)) : null;
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /** pve refuses to rename a volume whose {@code current} has a snapshot below it. */
    public void checkRenamable(VolumeName volume) {
        if (isChainImage(volume) && chainOf(volume).hasSnapshots()) {
            throw StorageException.badInput("we can't rename volume if a snapshot backed by a volume-chain exists");
        }
    }

    private boolean isChainImage(VolumeName volume) {
        return volume.hasFormat(VolumeFormat.QCOW2)
                && volume.type() == ContentType.IMAGES
                && Files.isRegularFile(layout.path(volume), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Finishes or undoes what a chain operation on the volume left when it was killed
     * ({@link VolumeChain#recover}); call it under the storage lock before any change of the volume.
     * Nothing for a volume that can have no chain.
     */
    public void recover(VolumeName volume) {
        if (volume.hasFormat(VolumeFormat.QCOW2) && volume.type() == ContentType.IMAGES && !volume.isBase()) {
            chainOf(volume).recover();
        }
    }

    /**
     * {@code vsm cleanup}'s part, under the storage lock: every volume under {@code images/} with an
     * intent record ({@code .<file>.vsm-chain}) recovered; what was recovered or removed, as
     * {@code <vmid>/<file>}. Never a record reached through a link out of the storage. The temporary
     * file of a record whose writer was killed ({@code ..<file>.vsm-chain.tmp-<pid>}: no operation
     * had begun) is removed: under the lock no record is being written.
     */
    public List<String> recoverAll() {
        List<String> done = new ArrayList<>();
        Path images = layout.subdir(ContentType.IMAGES);
        for (Path owner : FileStat.entries(images)) {
            if (!Files.isDirectory(owner, LinkOption.NOFOLLOW_LINKS)
                    || layout.linkOut(owner).isPresent()) {
                continue;
            }
            for (Path torn : intentRecords(owner, "..*" + FileChainLayers.INTENT_SUFFIX + ".tmp-[0-9]*")) {
                context.files().delete(torn); // a record's temporary file: a run killed while it wrote the record
                done.add(owner.getFileName() + "/" + torn.getFileName());
            }
            for (Path entry : intentRecords(owner, ".*" + FileChainLayers.INTENT_SUFFIX)) {
                String file = entry.getFileName().toString();
                Path image = owner.resolve(file.substring(1, file.length() - FileChainLayers.INTENT_SUFFIX.length()));
                String volname = owner.getFileName() + "/" + image.getFileName();
                new VolumeChain(
                                new FileChainLayers(volname, layout.basePath(), image, context, options.get()),
                                context.qemuImg(),
                                context.console())
                        .recover();
                done.add(volname);
            }
        }
        return done;
    }

    /** The regular files in one owner directory whose names match {@code glob}, sorted; none when it cannot be read. */
    private static List<Path> intentRecords(Path owner, String glob) {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(owner, glob)) {
            for (Path entry : entries) {
                if (Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS)) {
                    found.add(entry);
                }
            }
        } catch (IOException | DirectoryIteratorException e) {
            return List.of();
        }
        found.sort(null);
        return found;
    }

    /** Fails while the volume's chain has an operation under way or left by a killed run ({@link VolumeChain#checkSettled}). */
    public void checkSettled(VolumeName volume) {
        if (volume.hasFormat(VolumeFormat.QCOW2) && volume.type() == ContentType.IMAGES && !volume.isBase()) {
            chainOf(volume).checkSettled();
        }
    }

    /** {@link #chain}, after {@link #recover}: for the operations that change the chain, under the storage lock. */
    private VolumeChain changing(VolumeName volume, String wrongFormat) {
        checkChainable(volume, wrongFormat);
        chainOf(volume).recover();
        return chain(volume, wrongFormat);
    }

    private static void checkChainable(VolumeName volume, String wrongFormat) {
        if (!volume.hasFormat(VolumeFormat.QCOW2) || volume.type() != ContentType.IMAGES) {
            throw StorageException.badInput("%s", wrongFormat);
        }
        if (volume.isBase()) {
            throw StorageException.badInput("snapshot feature is not available for base volume '%s'", volume.volname());
        }
    }

    /** The chain of a volume that can have snapshots: an existing qcow2 image that is no base (pve's feature table). */
    private VolumeChain chain(VolumeName volume, String wrongFormat) {
        checkChainable(volume, wrongFormat);
        if (!Files.isRegularFile(layout.path(volume), LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("no such volume '%s'", volume.volname());
        }
        return chainOf(volume);
    }

    private VolumeChain chainOf(VolumeName volume) {
        FileChainLayers layers =
                new FileChainLayers(volume.volname(), layout.basePath(), layout.path(volume), context, options.get());
        return new VolumeChain(layers, context.qemuImg(), context.console());
    }
}
