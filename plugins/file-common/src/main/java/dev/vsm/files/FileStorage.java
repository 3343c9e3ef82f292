package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.Feature;
import dev.vsm.spi.ImageImport;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.ImportMetadata;
import dev.vsm.spi.Operation;
import dev.vsm.spi.PendingCleanup;
import dev.vsm.spi.SnapshotLayer;
import dev.vsm.spi.SourceFile;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What every storage that keeps its volumes as files under a {@link DirLayout} does the same way,
 * as pve's path-based plugins (dir, NFS, CIFS, CephFS) inherit it from {@code Plugin.pm}: volume
 * names and paths, images ({@link FileVolumes}), internal qcow2 snapshots ({@link Qcow2Snapshots}),
 * backups' notes and protection ({@link BackupAttributes}), listing ({@link ImageLister},
 * {@link ContentFileLister}), streams ({@link ContentStreams}) and the feature table
 * ({@link FileFeatures}). A subclass adds what is its own: activation and {@link #status()}.
 */
public abstract class FileStorage implements Storage {
    private static final Set<Operation> OPERATIONS = Set.of(
            Operation.SNAPSHOT,
            Operation.RESIZE,
            Operation.CREATE_BASE,
            Operation.CLONE,
            Operation.RENAME,
            Operation.IMPORT_IMAGE,
            Operation.UPDATE_ATTRIBUTES,
            Operation.IMPORT_METADATA);

    private final StorageConfig config;
    private final StorageContext context;
    private final DirLayout layout;
    /** The zone backup names are in, asked for when a listing needs it (the JDK reads the zone's rules file). */
    private final Supplier<ZoneId> zone;

    private final FileVolumes volumes;
    private final Qcow2Snapshots snapshots;
    /** External snapshots, when the storage has {@code snapshot-as-volume-chain}; else null. */
    private final ChainSnapshots chains;

    private final BackupAttributes attributes;
    private final ContentStreams streams;

    /**
     * @param layout where the storage keeps each content type ({@link DirLayout#of})
     * @param zone   the time zone backup names are written in (pve: the host's local time)
     */
    protected FileStorage(StorageConfig config, StorageContext context, DirLayout layout, Supplier<ZoneId> zone) {
        this.config = requireNonNull(config, "config");
        this.layout = requireNonNull(layout, "layout");
        this.context = WithinStorage.of(requireNonNull(context, "context"), layout.basePath());
        this.zone = requireNonNull(zone, "zone");
        this.volumes = new FileVolumes(config.id(), layout, this.context, this::imageOptions);
        this.snapshots = new Qcow2Snapshots(config.id(), layout, this.context.qemuImg());
        this.chains = config.bool(ChainSnapshots.PROPERTY, false)
                ? new ChainSnapshots(layout, this.context, this::imageOptions)
                : null;
        this.attributes = new BackupAttributes(layout, this.context.files());
        this.streams = new ContentStreams(config.id(), layout, this.context);
    }

    @Override
    public StorageConfig config() {
        return config;
    }

    protected final StorageContext context() {
        return context;
    }

    protected final DirLayout layout() {
        return layout;
    }

    @Override
    public VolumeName parseVolname(String volname) {
        return DirVolumeNames.parse(volname);
    }

    @Override
    public Path path(VolumeName volume) {
        return volumes.path(volume);
    }

    // --- images (FileVolumes)

    @Override
    public String allocImage(AllocRequest request) {
        return volumes.alloc(request);
    }

    /**
     * With volume chains, the volume's snapshot files go after it (pve: oldest first, each
     * failure a warning), and then its directory if that is empty.
     */
    @Override
    public Optional<Runnable> freeImage(VolumeName volume) {
        recoverChain(volume);
        List<Path> snapshotFiles = chains == null ? List.of() : chains.snapshotFiles(volume);
        Optional<Runnable> after = volumes.free(volume);
        if (volume.type() == ContentType.BACKUP) {
            ArchiveAuxiliaries.remove(path(volume), context); // its log and notes go with it
        }
        for (Path file : snapshotFiles) {
            try {
                context.files().delete(file);
            } catch (StorageException e) {
                context.console().warn(e.getMessage());
            }
        }
        if (!snapshotFiles.isEmpty()) {
            context.files().deleteIfEmpty(snapshotFiles.get(0).getParent());
        }
        return after;
    }

    /**
     * Temporary image files an interrupted {@code alloc}, {@code clone} or {@code import} of this
     * node left (see {@link PartialImages}), removed after the storage lock is released.
     */
    @Override
    public Optional<PendingCleanup> pendingCleanup() {
        List<String> recovered = chains == null ? List.of() : chains.recoverAll();
        Optional<PendingCleanup> partial = volumes.pendingCleanup();
        if (recovered.isEmpty()) {
            return partial;
        }
        List<String> items = new ArrayList<>();
        recovered.forEach(v -> items.add(v + " (interrupted chain operation)"));
        partial.ifPresent(p -> items.addAll(p.items()));
        return Optional.of(
                PendingCleanup.of(items, () -> partial.ifPresent(p -> p.task().run())));
    }

    /** With volume chains, what a killed chain operation left on the volume is finished or undone first. */
    private void recoverChain(VolumeName volume) {
        if (chains != null) {
            chains.recover(volume);
        }
    }

    @Override
    public Set<Operation> operations() {
        return OPERATIONS;
    }

    @Override
    public void volumeResize(VolumeName volume, long sizeBytes) {
        recoverChain(volume);
        volumes.resize(volume, sizeBytes);
    }

    @Override
    public String createBase(VolumeName volume) {
        return volumes.createBase(volume);
    }

    @Override
    public String cloneImage(VolumeName base, int vmid) {
        return volumes.clone(base, vmid);
    }

    @Override
    public String renameVolume(VolumeName volume, int targetVmid, String targetName) {
        if (chains != null) {
            chains.recover(volume);
            chains.checkRenamable(volume);
        }
        return volumes.rename(volume, targetVmid, targetName);
    }

    @Override
    public ImageInfo volumeSizeInfo(VolumeName volume) {
        return volumes.sizeInfo(volume);
    }

    /** A new image is a new file: it reads zeros. */
    @Override
    public boolean newVolumesReadZeros() {
        return true;
    }

    @Override
    public boolean hasFeature(Feature feature, VolumeName volume, String snapshot) {
        return FileFeatures.has(feature, volume, snapshot);
    }

    // --- qcow2 snapshots: internal (Qcow2Snapshots), or external with volume chains (ChainSnapshots)

    @Override
    public void volumeSnapshot(VolumeName volume, String snapshot) {
        if (chains != null) {
            chains.create(volume, snapshot);
        } else {
            snapshots.create(volume, snapshot);
        }
    }

    @Override
    public void volumeSnapshotRollback(VolumeName volume, String snapshot) {
        if (chains != null) {
            chains.rollback(volume, snapshot);
        } else {
            snapshots.rollback(volume, snapshot);
        }
    }

    @Override
    public void volumeSnapshotDelete(VolumeName volume, String snapshot) {
        if (chains != null) {
            chains.delete(volume, snapshot);
        } else {
            snapshots.delete(volume, snapshot);
        }
    }

    @Override
    public List<String> volumeSnapshots(VolumeName volume) {
        return chains != null ? chains.list(volume) : snapshots.list(volume);
    }

    /** With volume chains every layer ({@link ChainSnapshots#info}); else the image's internal snapshots. */
    @Override
    public List<SnapshotLayer> volumeSnapshotInfo(VolumeName volume) {
        return chains != null ? chains.info(config.id(), volume) : snapshots.info(volume);
    }

    /** A snapshot's layer only with volume chains, as pve. */
    @Override
    public void volumeResize(VolumeName volume, long sizeBytes, String snapshot) {
        if (snapshot == null) {
            volumeResize(volume, sizeBytes);
        } else if (chains == null) {
            throw StorageException.badInput(
                    "resizing a snapshot is not supported for storage '%s' (type %s) without '%s'",
                    config.id(), config.type(), ChainSnapshots.PROPERTY);
        } else {
            chains.resize(volume, snapshot, sizeBytes);
        }
    }

    /**
     * Only with volume chains, where a snapshot is a file of its own: pve's dir storage without
     * them refuses too (its source and target are the same file).
     */
    @Override
    public void renameSnapshot(VolumeName volume, String from, String to) {
        if (chains == null) {
            throw StorageException.badInput(
                    "renaming a snapshot is not supported for storage '%s' (type %s) without '%s'",
                    config.id(), config.type(), ChainSnapshots.PROPERTY);
        }
        chains.renameSnapshot(volume, from, to);
    }

    /** With volume chains only the newest snapshot; internal snapshots any (pve). */
    @Override
    public List<String> rollbackBlockers(VolumeName volume, String snapshot) {
        if (chains != null) {
            return chains.rollbackBlockers(volume, snapshot);
        }
        return Storage.super.rollbackBlockers(volume, snapshot);
    }

    /**
     * Nothing to activate on a file storage: the file must exist (pve's {@code activate_volume}),
     * with volume chains the snapshot's file too, and no chain operation be pending on it (a guest
     * would run on layers its recovery changes).
     */
    @Override
    public void activateVolume(VolumeName volume, String snapshot) {
        if (chains != null) {
            chains.checkSettled(volume);
        }
        Path file = path(volume);
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("volume '%s:%s' does not exist", config.id(), volume.volname());
        }
        if (snapshot != null && chains != null) {
            chains.snapshotFile(volume, snapshot);
        } else {
            Storage.super.activateVolume(volume, snapshot);
        }
    }

    @Override
    public void deactivateVolume(VolumeName volume, String snapshot) {
        if (snapshot != null && chains != null) {
            chains.snapshotFile(volume, snapshot);
        } else {
            Storage.super.deactivateVolume(volume, snapshot);
        }
    }

    // --- notes and protection of backups (BackupAttributes)

    @Override
    public Optional<String> volumeNotes(VolumeName volume) {
        return attributes.notes(volume);
    }

    @Override
    public void updateVolumeNotes(VolumeName volume, String notes) {
        attributes.updateNotes(volume, notes);
    }

    @Override
    public boolean volumeProtected(VolumeName volume) {
        return attributes.isProtected(volume);
    }

    @Override
    public void updateVolumeProtected(VolumeName volume, boolean value) {
        attributes.updateProtected(volume, value);
    }

    // --- listing

    @Override
    public List<VolumeInfo> listImages(Integer vmid) {
        return volumes.list(vmid);
    }

    /**
     * Images are always listed as content {@code images}: vsm has no cluster VM list to tell
     * containers' volumes ({@code rootdir}) apart, so asking for {@code rootdir} alone lists no images.
     */
    @Override
    public List<VolumeInfo> listVolumes(Integer vmid, Set<ContentType> types) {
        List<VolumeInfo> found = new ArrayList<>();
        if (types.contains(ContentType.IMAGES)) {
            found.addAll(listImages(vmid));
        }
        ContentFileLister files = new ContentFileLister(config.id(), layout, zone.get(), context.console());
        for (ContentType type : ContentType.values()) {
            if (types.contains(type)
                    && type != ContentType.IMAGES
                    && type != ContentType.ROOTDIR
                    && type != ContentType.NONE) {
                found.addAll(files.list(type, vmid));
            }
        }
        return found;
    }

    // --- import and export (FileVolumes, ContentStreams)

    @Override
    public String importImage(ImageImport request) {
        return volumes.importImage(request);
    }

    @Override
    public Optional<String> allocWritten(AllocRequest request, Consumer<Path> writer) {
        return volumes.allocWritten(request, writer);
    }

    @Override
    public Set<StreamFormat> exportFormats(VolumeName volume, boolean withSnapshots) {
        if (withSnapshots && chains != null) {
            return Set.of(); // pve: a volume chain's snapshots are not exported
        }
        return streams.exportFormats(volume, withSnapshots);
    }

    @Override
    public Set<StreamFormat> importFormats(VolumeFormat volumeFormat, boolean withSnapshots) {
        return streams.importFormats(volumeFormat, withSnapshots);
    }

    @Override
    public Set<StreamFormat> contentImportFormats(VolumeName volume, boolean withSnapshots) {
        return streams.contentImportFormats(volume, withSnapshots);
    }

    @Override
    public void writeContent(VolumeName volume, Consumer<Path> writer) {
        if (contentImportFormats(volume, false).isEmpty()) {
            Storage.super.writeContent(volume, writer);
        }
        streams.writeContent(path(volume), writer);
    }

    /** An OVF's or OVA's guest, read by descriptor ({@link OvfImports}). */
    @Override
    public ImportMetadata importMetadata(VolumeName volume) {
        return streams.importMetadata(volume, path(volume));
    }

    @Override
    public SourceFile sourceFile(VolumeName volume) {
        return streams.sourceFile(volume, path(volume));
    }

    // --- paths

    /**
     * The volume name of a file on this storage (pve's {@code path_to_volume_id}). An image must
     * be listed when it exists, so that a linked clone gets the name that records its base; one
     * that does not exist yet (a path {@code vsm path} printed) gets the name its path spells, if
     * that is a name vsm gives an image of the directory's owner.
     */
    @Override
    public Optional<String> volnameForPath(Path file) {
        Path absolute = file.toAbsolutePath().normalize();
        try {
            absolute = absolute.toRealPath();
        } catch (IOException e) {
            // pve: abs_path() fails for a missing path; use it as given
        }
        Optional<PathVolume> found = layoutForRealPaths().volumeForPath(absolute);
        if (found.isEmpty() || found.get().type() != ContentType.IMAGES) {
            return found.map(PathVolume::volname);
        }
        int vmid = Integer.parseInt(
                found.get().volname().substring(0, found.get().volname().indexOf('/')));
        if (!Files.exists(absolute, LinkOption.NOFOLLOW_LINKS)) {
            // only a name vsm gives an image of this owner: vm-<vmid>-…, base-<vmid>-…, subvol-<vmid>-…
            String fileName = absolute.getFileName().toString();
            if (!fileName.matches("(?:vm|base|subvol)-" + vmid + "-[^/\\s]+\\.(?:raw|qcow2|vmdk|subvol)")) {
                return Optional.empty();
            }
            try {
                DirVolumeNames.parse(found.get().volname());
                return Optional.of(found.get().volname());
            } catch (StorageException e) {
                return Optional.empty();
            }
        }
        for (VolumeInfo image : listImages(vmid)) {
            String volname = VolumeId.parse(image.volid()).volname();
            if (layoutForRealPaths().path(DirVolumeNames.parse(volname)).equals(absolute)) {
                return Optional.of(volname);
            }
        }
        return Optional.empty();
    }

    /** The layout with the storage path's symbolic links resolved, to compare with resolved paths. */
    private DirLayout layoutForRealPaths() {
        try {
            return new DirLayout(layout.basePath().toRealPath(), layout.contentDirs());
        } catch (IOException e) {
            return layout;
        }
    }
}
