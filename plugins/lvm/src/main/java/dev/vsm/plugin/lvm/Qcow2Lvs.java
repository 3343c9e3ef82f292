package dev.vsm.plugin.lvm;

import static java.util.Objects.requireNonNull;

import dev.vsm.lvm.ActivationTarget;
import dev.vsm.lvm.Lvm;
import dev.vsm.spi.ImageOptions;
import dev.vsm.spi.ImageOptions.Subclusters;
import dev.vsm.spi.Preallocation;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.nio.file.Path;
import java.util.List;

/**
 * qcow2 images in LVs, as pve 9 makes them with {@code snapshot-as-volume-chain} (LVMPlugin.pm's
 * {@code alloc_lvm_image}, {@code lvm_qcow2_format}, {@code volume_resize}): the LV sized by
 * {@code qemu-img measure}'s {@code fully-allocated} (thick, room for every cluster and all the
 * metadata), tagged {@code pve-vm-<vmid>} and {@code @pve-<name>}, the volume's chain activated
 * by {@code --select} (fix #7143), then formatted with {@code preallocation=metadata}. A backed
 * image gets {@code extended_l2=on,cluster_size=128k} and is measured with them.
 */
final class Qcow2Lvs {
    /** LVM has no preallocation option: qcow2 on LVM always gets {@code metadata}; overlays subclusters. */
    static final ImageOptions OPTIONS = ImageOptions.of(Preallocation.METADATA, Subclusters.AUTO, null);
    /**
     * With {@code shrink-snapshot-lvs}: no preallocation, so that an image's clusters are mapped as
     * they are written, one after another, and its end is what was written ({@link SnapshotLvSizes}).
     */
    static final ImageOptions UNPREALLOCATED = ImageOptions.of(Preallocation.OFF, Subclusters.AUTO, null);

    private final String storageId;
    private final String vg;
    private final StorageContext context;
    private final Lvm lvm;
    /** {@code shrink-snapshot-lvs}. */
    private final boolean shrinkSnapshotLvs;
    /** What images are made and resized with: {@link #OPTIONS}, or {@link #UNPREALLOCATED}. */
    private final ImageOptions images;

    Qcow2Lvs(String storageId, String vg, StorageContext context, Lvm lvm, boolean shrinkSnapshotLvs) {
        this.storageId = requireNonNull(storageId, "storageId");
        this.vg = requireNonNull(vg, "vg");
        this.context = requireNonNull(context, "context");
        this.lvm = requireNonNull(lvm, "lvm");
        this.shrinkSnapshotLvs = shrinkSnapshotLvs;
        this.images = shrinkSnapshotLvs ? UNPREALLOCATED : OPTIONS;
    }

    /** The sizes of the LVs of {@code volume}'s chain (its own LV's name), for one chain operation. */
    SnapshotLvSizes sizesOf(String volume) {
        return new SnapshotLvSizes(vg, volume, context, lvm, this, shrinkSnapshotLvs);
    }

    Path path(String lv) {
        return Path.of("/dev", vg, lv);
    }

    /** The KiB of an LV holding a qcow2 image of {@code sizeKib} KiB, rounded up. */
    long lvKib(long sizeKib, boolean backed) {
        long bytes = context.qemuImg().measureNew(sizeKib, VolumeFormat.QCOW2, OPTIONS, backed);
        return (bytes + 1023) / 1024;
    }

    /**
     * Makes LV {@code name} holding a new qcow2 image of {@code sizeKib} KiB, or, when
     * {@code backing} is not null, an empty overlay on the LV of that name (which gives it its
     * size). The LV is removed again ({@code lvremove -f}: it holds nothing yet) when formatting
     * fails.
     *
     * @param volume the volume whose chain is activated (the volume's own name, {@code current})
     */
    void create(String volume, String name, int vmid, long sizeKib, String backing) {
        create(volume, name, name, vmid, sizeKib, backing);
    }

    /** {@link #create(String, String, int, long, String)} of an LV that is renamed {@code finalName} once formatted (its tag's name). */
    void create(String volume, String name, String finalName, int vmid, long sizeKib, String backing) {
        long lvKib = lvKib(sizeKib, backing != null);
        long free = lvm.vgs()
                .group(vg)
                .orElseThrow(() -> StorageException.failed("no such volume group '%s' (storage '%s')", vg, storageId))
                .free();
        if (free < lvKib * 1024) {
            throw StorageException.failed(
                    "storage '%s': not enough free space in volume group '%s' (%d bytes requested, %d bytes free)",
                    storageId, vg, lvKib * 1024, free);
        }
        lvm.lvcreate(vg, name, lvKib, List.of(Lvm.ownerTag(vmid), Lvm.volumeTag(finalName)));
        try {
            lvm.activate(chainTarget(volume));
            if (backing == null) {
                context.qemuImg().create(path(name), VolumeFormat.QCOW2, sizeKib, images);
            } else {
                context.qemuImg().createBacked(path(name), backing, VolumeFormat.QCOW2.id(), images);
            }
        } catch (RuntimeException e) {
            try {
                lvm.lvremove(vg, name);
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /**
     * Grows LV {@code lv} and its image to {@code sizeBytes} (pve's {@code volume_resize}, also of a
     * snapshot's LV): {@code lvextend -L <measure>k} (measured without an overlay's options, as
     * pve does), then {@code qemu-img resize --preallocation=metadata}. The LV is left as it is
     * when it is already large enough (lvm2 refuses a size that matches).
     */
    void grow(String lv, long sizeBytes) {
        extend(lv, sizeBytes, false);
        context.qemuImg().resize(path(lv), VolumeFormat.QCOW2.id(), sizeBytes, images);
    }

    /**
     * {@code lvextend -L <measure>k} of LV {@code lv} when it is smaller than an image of
     * {@code sizeBytes} needs fully allocated ({@code backed}: measured as an overlay); nothing
     * otherwise.
     *
     * @param knownSize the LV's size when the caller knows it better than {@code lvs} (a dry run), or null
     * @return the LV's size after
     */
    long extend(String lv, long sizeBytes, boolean backed, Long knownSize) {
        Path path = path(lv);
        long lvKib = lvKib((sizeBytes + 1023) / 1024, backed);
        long size = knownSize != null ? knownSize : lvm.lvSize(path);
        if (size < lvKib * 1024) {
            lvm.lvextend(path, lvKib);
            return lvKib * 1024;
        }
        return size;
    }

    private void extend(String lv, long sizeBytes, boolean backed) {
        extend(lv, sizeBytes, backed, null);
    }

    /** The volume's LV and its snapshot LVs in this VG, by name ({@link ActivationTarget#volumeChain}). */
    ActivationTarget chainTarget(String volume) {
        return ActivationTarget.volumeChain(vg, volume, path(volume));
    }
}
