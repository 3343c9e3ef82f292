package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.SnapshotLayer;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Internal qcow2 snapshots of a file storage's images (pve's {@code volume_snapshot},
 * {@code volume_snapshot_rollback}, {@code volume_snapshot_delete} and
 * {@code volume_snapshot_info} without snapshot-as-volume-chain): the snapshots live inside the
 * image, and qemu-img ({@link QemuImg#snapshot}) makes, applies and deletes them.
 *
 * <p>Every operation starts at {@link #snapshotImage}, which finds the image a volume's snapshots
 * are kept in; external snapshots (pve 9's volume chains: {@code snap-<name>-<volume>.qcow2}
 * files beside the image) will branch there, leaving the internal ones as they are.
 */
public final class Qcow2Snapshots {
    private final String storageId;
    private final DirLayout layout;
    private final QemuImg qemuImg;

    public Qcow2Snapshots(String storageId, DirLayout layout, QemuImg qemuImg) {
        this.storageId = requireNonNull(storageId, "storageId");
        this.layout = requireNonNull(layout, "layout");
        this.qemuImg = requireNonNull(qemuImg, "qemuImg");
    }

    public void create(VolumeName volume, String snapshot) {
        Path path = snapshotImage(volume, "can't snapshot this image format");
        if (list(volume).contains(snapshot)) {
            throw StorageException.badInput(
                    "snapshot '%s' of volume '%s:%s' already exists", snapshot, storageId, volume.volname());
        }
        qemuImg.snapshot(path, volume.format(), QemuImg.SnapshotAction.CREATE, snapshot);
    }

    public void rollback(VolumeName volume, String snapshot) {
        Path path = snapshotImage(volume, "can't rollback snapshot this image format");
        existingSnapshot(volume, snapshot, "can't rollback, snapshot '%s' does not exist on '%s'");
        qemuImg.snapshot(path, volume.format(), QemuImg.SnapshotAction.APPLY, snapshot);
    }

    public void delete(VolumeName volume, String snapshot) {
        Path path = snapshotImage(volume, "can't delete snapshot for this image format");
        existingSnapshot(volume, snapshot, "snapshot '%s' does not exist on '%s'");
        qemuImg.snapshot(path, volume.format(), QemuImg.SnapshotAction.DELETE, snapshot);
    }

    /** The names of the image's snapshots, oldest first; none for a volume that is no qcow2 file. */
    public List<String> list(VolumeName volume) {
        Path path = layout.inside(storageId, volume.volname(), layout.path(volume));
        if (!volume.hasFormat(VolumeFormat.QCOW2) || !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        return qemuImg.snapshots(path, volume.format());
    }

    /**
     * The image's internal snapshots as pve's {@code volume_snapshot_info} reports them without
     * volume chains: each with its creation time ({@code date-sec}); here newest first, ordered
     * 1, 2, ... like a chain's, with no file, volume id or size of their own (they live in the image).
     */
    public List<SnapshotLayer> info(VolumeName volume) {
        Path path = layout.inside(storageId, volume.volname(), layout.path(volume));
        if (!volume.hasFormat(VolumeFormat.QCOW2) || !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        List<Map.Entry<String, Long>> times =
                new ArrayList<>(qemuImg.snapshotTimes(path, volume.format()).entrySet());
        List<SnapshotLayer> layers = new ArrayList<>();
        for (int i = times.size() - 1; i >= 0; i--) {
            layers.add(SnapshotLayer.builder(times.get(i).getKey())
                    .order(times.size() - i)
                    .ctime(times.get(i).getValue())
                    .build());
        }
        return layers;
    }

    /** The image of a volume that can have internal snapshots: an existing qcow2 that is no base (pve's feature table). */
    private Path snapshotImage(VolumeName volume, String wrongFormat) {
        if (!volume.hasFormat(VolumeFormat.QCOW2) || volume.type() != ContentType.IMAGES) {
            throw StorageException.badInput("%s", wrongFormat);
        }
        if (volume.isBase()) {
            throw StorageException.badInput("snapshot feature is not available for base volume '%s'", volume.volname());
        }
        Path path = layout.inside(storageId, volume.volname(), layout.path(volume)); // path's and info's rule
        if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("no such volume '%s'", volume.volname());
        }
        return path;
    }

    private void existingSnapshot(VolumeName volume, String snapshot, String message) {
        if (!list(volume).contains(snapshot)) {
            throw StorageException.badInput(message, snapshot, volume.volname());
        }
    }
}
