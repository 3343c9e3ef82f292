package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;

/**
 * What {@link VsmStorage#pruneBackups} prunes ({@code vsm prune-backups}, pve's
 * {@code prune_backups}): a storage's backups, those of one guest or one guest type only, with
 * retention options as pve's {@code prune-backups} property string ({@code keep-last=3,keep-daily=7})
 * or, when none is given, the storage's own; as a preview (pve's dry run) or for real.
 */
public final class PruneBackups {
    private final String storage;
    private final String keep;
    private final Integer vmid;
    private final String type;
    private final boolean dryRun;

    private PruneBackups(String storage, String keep, Integer vmid, String type, boolean dryRun) {
        this.storage = storage;
        this.keep = keep;
        this.vmid = vmid;
        this.type = type;
        this.dryRun = dryRun;
    }

    /** The backups of {@code storage}, pruned with its own {@code prune-backups}, for real. */
    public static PruneBackups of(String storage) {
        return new PruneBackups(VolumeId.checkStorageId(requireNonNull(storage, "storage")), null, null, null, false);
    }

    /** Retention options as pve's property string, in place of the storage's; null: the storage's. */
    public PruneBackups keep(String options) {
        return new PruneBackups(storage, options, vmid, type, dryRun);
    }

    /** Only this guest's backups; null: every guest's. */
    public PruneBackups vmid(Integer owner) {
        return new PruneBackups(storage, keep, owner, type, dryRun);
    }

    /** Only backups of guests of this type, {@code qemu} or {@code lxc}; null: both. */
    public PruneBackups type(String guestType) {
        if (guestType != null && !guestType.equals("qemu") && !guestType.equals("lxc")) {
            throw StorageException.badInput(
                    "type: value '%s' does not have a value in the enumeration 'qemu, lxc'",
                    VolumeId.printable(guestType));
        }
        return new PruneBackups(storage, keep, vmid, guestType, dryRun);
    }

    /** Only mark the backups (keep, remove, protected, renamed); remove nothing. */
    public PruneBackups dryRun(boolean preview) {
        return new PruneBackups(storage, keep, vmid, type, preview);
    }

    public String storage() {
        return storage;
    }

    public String keep() {
        return keep;
    }

    public Integer vmid() {
        return vmid;
    }

    public String type() {
        return type;
    }

    public boolean dryRun() {
        return dryRun;
    }
}
