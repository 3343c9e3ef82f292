package dev.vsm.plugin.lvm;

import static java.util.Objects.requireNonNull;

import dev.vsm.lvm.LogicalVolume;
import dev.vsm.lvm.Lvm;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The sizes of a chain's LVs, for one chain operation under the storage lock. pve sizes every LV
 * of a chain for its whole image ({@code qemu-img measure}'s {@code fully-allocated}), so N
 * snapshots reserve N+1 times the disk. A frozen layer is never written but by a merge, though:
 * with vsm's {@code shrink-snapshot-lvs} (images then made without preallocation, so an image's
 * end is what was written) a frozen layer's LV shrinks to its image's end ({@code qemu-img check}'s
 * {@code image-end-offset}, rounded up to the VG's extent size), and before a merge writes into a
 * frozen layer its LV grows back to its measure, with or without the option (an LV shrunk while
 * the option was set stays writable after it is cleared).
 *
 * <p>No further headroom: a frozen layer is only read (as a backing image) or has its header
 * rewritten in place ({@code qemu-img rebase -u}); neither allocates a cluster.
 *
 * <p>Shrunk only: an LV that is not the volume's own ({@code current}, the written layer), whose
 * image end was read just before, under the lock, and which no process holds open. An open one
 * (a running VM's, whose writes go on into the old {@code current} until its manager switches to
 * the new one) stays at its size, with a warning; the next rollback to it shrinks it.
 */
final class SnapshotLvSizes {
    private final String vg;
    private final String volume;
    private final StorageContext context;
    private final Lvm lvm;
    private final Qcow2Lvs lvs;
    private final boolean shrink;
    /** Under a dry run, where nothing is renamed or resized: the name each LV has now, by the name it would have. */
    private final Map<String, String> dryRunNames = new HashMap<>();
    /** Under a dry run: the size an LV would have after this run's extends, by the name it would have. */
    private final Map<String, Long> dryRunSizes = new HashMap<>();

    /**
     * @param volume the volume's own LV, {@code current}: never shrunk
     * @param shrink {@code shrink-snapshot-lvs}
     */
    SnapshotLvSizes(String vg, String volume, StorageContext context, Lvm lvm, Qcow2Lvs lvs, boolean shrink) {
        this.vg = requireNonNull(vg, "vg");
        this.volume = requireNonNull(volume, "volume");
        this.context = requireNonNull(context, "context");
        this.lvm = requireNonNull(lvm, "lvm");
        this.lvs = requireNonNull(lvs, "lvs");
        this.shrink = shrink;
    }

    /** LV {@code from} was renamed {@code to} (under a dry run: would have been). */
    void renamed(String from, String to) {
        if (!context.dryRun()) {
            return;
        }
        dryRunNames.put(to, dryRunNames.getOrDefault(from, from));
        Long size = dryRunSizes.remove(from);
        if (size != null) {
            dryRunSizes.put(to, size);
        }
    }

    /**
     * Before qemu-img writes into frozen layer {@code lv} (a commit into it, a rebase of it): its
     * LV grows to what its image of {@code virtualSize} bytes needs fully allocated ({@code backed}:
     * measured as an overlay, as it was made), {@code lvextend}, when it is smaller.
     */
    void beforeWrite(String lv, long virtualSize, boolean backed) {
        long size = lvs.extend(lv, virtualSize, backed, dryRunSizes.get(lv));
        if (context.dryRun()) {
            dryRunSizes.put(lv, size);
        }
    }

    /**
     * Frozen layer {@code lv} is not written any more: with the option, its LV shrinks to its image's
     * end rounded up to the VG's extent size ({@code lvreduce}), when that is smaller. Under a dry
     * run the image is read as it is before this run (before a merge into it, then).
     */
    void frozen(String lv) {
        if (!shrink) {
            return;
        }
        if (lv.equals(volume)) {
            throw new IllegalArgumentException("the volume's own LV '" + lv + "' is written: never shrunk");
        }
        String now = dryRunNames.getOrDefault(lv, lv);
        LogicalVolume found = lvm.lvs(vg)
                .find(vg, now)
                .orElseThrow(() -> StorageException.failed("volume '%s/%s' does not exist", vg, now));
        if (found.open()) {
            context.console()
                    .warn(String.format(
                            "%s/%s is open (a running VM's?): left at its size, %d bytes", vg, lv, found.size()));
            return;
        }
        long end = context.qemuImg().imageEnd(lvs.path(now), VolumeFormat.QCOW2.id());
        long extent = lvm.extentSize(vg);
        long target = (end + extent - 1) / extent * extent;
        long size = dryRunSizes.getOrDefault(lv, found.size());
        if (target < size) {
            Path path = lvs.path(lv);
            lvm.lvreduce(path, target / 1024);
        }
    }
}
