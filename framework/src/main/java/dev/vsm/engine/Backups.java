package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.backup.ArchiveInfo;
import dev.vsm.backup.BackupPruner;
import dev.vsm.backup.PruneEntry;
import dev.vsm.backup.VzdumpConfig;
import dev.vsm.config.PruneOptions;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.Operation;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Backup archives on a storage (pve's {@code PVE::Storage} backup functions): pruning, notes and
 * protection, the guest configuration inside an archive, and the log and notes files that go with
 * an archive when it is removed.
 */
public final class Backups {
    public static final String MAX_PROTECTED_BACKUPS = "max-protected-backups";

    private final StorageManager manager;
    private final ZoneId zone;

    /** @param zone the time zone of backup names (pve: the host's local time) */
    public Backups(StorageManager manager, ZoneId zone) {
        this.manager = requireNonNull(manager, "manager");
        this.zone = requireNonNull(zone, "zone");
    }

    /**
     * Marks a storage's backups and, unless {@code dryRun}, removes those marked {@code remove}
     * (pve's {@code prune_backups}), printing {@code removing backup '<volid>'} for each. A backup
     * protected meanwhile is not removed.
     *
     * @param keep the retention options ({@link PruneOptions#parse}), or null for the storage's {@code prune-backups}
     * @return the marked backups, in listing order
     */
    public List<PruneEntry> prune(String storageId, Map<String, Long> keep, Integer vmid, String type, boolean dryRun) {
        StorageConfig cfg = manager.config(storageId);
        if (!cfg.content(manager.schema(storageId).defaultContent()).contains(ContentType.BACKUP)) {
            throw StorageException.badInput("storage '%s' does not support backups", storageId);
        }
        Map<String, Long> options = keep;
        if (options == null) {
            String configured = cfg.string(PruneOptions.PROPERTY)
                    .orElseThrow(() -> StorageException.badInput(
                            "no prune-backups options configured for storage '%s'", storageId));
            options = PruneOptions.parse(configured);
        }
        List<VolumeInfo> backups = ownArchives(storageId, manager.list(storageId, ContentType.BACKUP, vmid));
        List<PruneEntry> entries = BackupPruner.mark(backups, options, vmid, type, zone);
        if (dryRun) {
            return entries;
        }
        StorageContext context = manager.context();
        boolean failed = false;
        for (PruneEntry entry : entries) {
            if (!PruneEntry.REMOVE.equals(entry.mark())) {
                continue;
            }
            context.console().info("removing backup '" + entry.volid() + "'");
            try {
                remove(VolumeId.parse(entry.volid()));
            } catch (StorageException e) {
                context.console().warn("error when removing backup '" + entry.volid() + "' - " + e.getMessage());
                failed = true;
            }
        }
        if (failed) {
            throw StorageException.failed("error pruning backups - check log");
        }
        return entries;
    }

    /**
     * The backups a prune may count and remove: regular, non-empty files owned by the owner of
     * their directory. In a backup directory others may write (a sticky upload share), anyone can
     * add files named like backups; three empty ones dated in the future would be the newest and
     * make {@code keep-last=3} remove every real backup (pve prunes them so). Each one left out is
     * warned about and left alone.
     */
    private List<VolumeInfo> ownArchives(String storageId, List<VolumeInfo> backups) {
        Storage storage = manager.activate(storageId);
        List<VolumeInfo> own = new ArrayList<>();
        for (VolumeInfo backup : backups) {
            Path path = storage.path(
                    storage.parseVolname(VolumeId.parse(backup.volid()).volname()));
            Optional<String> problem;
            try {
                problem = notAnOwnArchive(path);
            } catch (NoSuchFileException gone) {
                continue; // removed since it was listed
            } catch (IOException e) {
                problem = Optional.of("cannot be examined: " + e.getMessage());
            }
            if (problem.isEmpty()) {
                own.add(backup);
            } else {
                manager.context()
                        .console()
                        .warn("warning: leaving backup '" + backup.volid() + "' alone: " + problem.get());
            }
        }
        return own;
    }

    private static Optional<String> notAnOwnArchive(Path path) throws IOException {
        Map<String, Object> file = Files.readAttributes(path, "unix:uid,size,isRegularFile", LinkOption.NOFOLLOW_LINKS);
        int directoryOwner = (Integer) Files.getAttribute(path.getParent(), "unix:uid", LinkOption.NOFOLLOW_LINKS);
        if (!(Boolean) file.get("isRegularFile")) {
            return Optional.of("not a regular file");
        }
        if ((Integer) file.get("uid") != directoryOwner) {
            return Optional.of(
                    "owned by uid " + file.get("uid") + ", not by its directory's owner (uid " + directoryOwner + ")");
        }
        if ((Long) file.get("size") == 0) {
            return Optional.of("an empty file");
        }
        return Optional.empty();
    }

    /** Removes a backup archive under the storage lock (pve's {@code archive_remove}), refusing a protected one. */
    private void remove(VolumeId volid) {
        StorageManager.Volume volume = manager.volume(volid);
        manager.context().locks().withStorageLock(volid.storage(), () -> {
            if (volume.storage().volumeProtected(volume.name())) {
                throw StorageException.badInput(
                        "cannot remove protected archive '%s'", volume.storage().path(volume.name()));
            }
            volume.storage().freeImage(volume.name());
            return null;
        });
    }

    /**
     * Sets a volume's notes and protection (pve's {@code updateattributes}); null leaves an attribute
     * as it is. Protecting a backup of a guest that has {@code max-protected-backups} protected
     * backups of its type already is refused.
     */
    public void updateAttributes(VolumeId volid, String notes, Boolean isProtected) {
        StorageManager.Volume volume = manager.volume(volid);
        Capabilities.require(volume.storage(), Operation.UPDATE_ATTRIBUTES);
        manager.context().locks().withStorageLock(volid.storage(), () -> {
            if (Boolean.TRUE.equals(isProtected)) {
                checkProtectedLimit(volid, volume); // before the notes change: a refusal changes nothing
            }
            if (notes != null) {
                volume.storage().updateVolumeNotes(volume.name(), notes);
            }
            if (isProtected != null) {
                volume.storage().updateVolumeProtected(volume.name(), isProtected);
            }
            return null;
        });
    }

    /**
     * pve's limit (Storage.pm {@code update_volume_attribute}): {@code max-protected-backups}, default
     * unlimited (pve's default for users who may allocate on the storage; vsm runs as root).
     */
    private void checkProtectedLimit(VolumeId volid, StorageManager.Volume volume) {
        VolumeName name = volume.name();
        long max =
                manager.config(volid.storage()).integer(MAX_PROTECTED_BACKUPS).orElse(-1L);
        if (name.type() != ContentType.BACKUP
                || name.vmid() == null
                || max <= -1
                || volume.storage().volumeProtected(name)) {
            return;
        }
        List<VolumeInfo> backups = volume.storage().listVolumes(name.vmid(), java.util.EnumSet.of(ContentType.BACKUP));
        Optional<String> backupType = backups.stream()
                .filter(v -> v.volid().equals(volid.toString()) && v.backup() != null)
                .map(v -> v.backup().subtype())
                .findFirst();
        long count = backups.stream()
                .filter(v -> v.backup() != null && v.backup().isProtected())
                .filter(v -> backupType.isEmpty()
                        || backupType.get().equals(v.backup().subtype()))
                .count();
        if (max <= count) {
            throw StorageException.badInput(
                    "The number of protected backups per guest is limited to %d on storage '%s'", max, volid.storage());
        }
    }

    /** The guest configuration inside a backup archive (pve's {@code extract_vzdump_config}). */
    public String extractConfig(VolumeId volid) {
        StorageManager.Volume volume = manager.volume(volid);
        if (volume.name().type() != ContentType.BACKUP) {
            throw StorageException.badInput("unable to use volume %s - content type needs to be 'backup'", volid);
        }
        Path archive = volume.storage().path(volume.name());
        if (!Files.exists(archive, LinkOption.NOFOLLOW_LINKS)) {
            // pve activates the volume (which must exist) before it reads the archive's name
            throw StorageException.badInput("volume '%s' does not exist", volid);
        }
        ArchiveInfo info = ArchiveInfo.of(archive.toString(), zone);
        return VzdumpConfig.extract(archive, info);
    }
}
