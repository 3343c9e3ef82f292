package dev.vsm.backup;

import dev.vsm.config.PruneOptions;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Marks a storage's backups for pruning (pve's {@code prune_backups} of the base plugin): backups
 * with a standard vzdump name are grouped by guest type and owner and each group is marked by
 * {@link PruneMarker}; the others are marked {@code renamed}, and protected ones {@code protected},
 * so neither is ever removed. Entries come in the order of the listing.
 */
public final class BackupPruner {
    private BackupPruner() {}

    /**
     * @param backups the storage's backups ({@code list_volumes} of content backup, for {@code vmid} when given)
     * @param keep    the retention options ({@link PruneOptions#parse})
     * @param vmid    only this owner's backups, or null
     * @param type    only this guest type's ({@code qemu}, {@code lxc}), or null
     * @param zone    the time zone of the names' times
     */
    public static List<PruneEntry> mark(
            List<VolumeInfo> backups, Map<String, Long> keep, Integer vmid, String type, ZoneId zone) {
        Map<String, List<PruneEntry>> groups = new LinkedHashMap<>();
        List<PruneEntry> entries = new ArrayList<>();
        for (VolumeInfo backup : backups) {
            String volid = backup.volid();
            ArchiveInfo info = archiveInfo(volid, zone);
            String backupType = info == null ? "unknown" : info.type();
            Integer backupVmid = info != null && info.vmid() != null ? info.vmid() : backup.vmid();
            if (type != null && !type.equals(backupType)) {
                continue;
            }
            PruneEntry entry;
            if (info != null && info.isStdName()) {
                if (vmid != null && !vmid.equals(backupVmid)) {
                    throw StorageException.failed("internal error - got wrong VMID '%d' != '%d'", backupVmid, vmid);
                }
                entry = new PruneEntry(volid, info.ctime(), backupType, backupVmid);
                groups.computeIfAbsent(backupType + "/" + backupVmid, g -> new ArrayList<>())
                        .add(entry);
            } else {
                entry = new PruneEntry(volid, backup.ctime(), backupType, backupVmid);
                entry.mark(PruneEntry.RENAMED);
            }
            if (backup.backup() != null && backup.backup().isProtected()) {
                entry.mark(PruneEntry.PROTECTED);
            }
            entries.add(entry);
        }
        groups.values().forEach(group -> PruneMarker.markGroup(group, keep, zone));
        return entries;
    }

    private static ArchiveInfo archiveInfo(String volid, ZoneId zone) {
        try {
            return ArchiveInfo.of(VolumeId.parse(volid).volname(), zone);
        } catch (StorageException e) {
            return null;
        }
    }
}
