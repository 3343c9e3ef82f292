package dev.vsm.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One configured storage, opened by its {@link StoragePlugin}. The engine calls these methods
 * with the storage activated and, for every change (alloc, free, create-base, clone), with the
 * storage lock held.
 *
 * <p>Required are the methods without a body. What a storage can do beyond them it declares in
 * one place, {@link #operations()}: each {@link Operation} has a default method that refuses with
 * {@link Operation#unsupportedBy}, which a storage that lists the operation overrides; the engine
 * checks the set before it calls. Per volume, {@link #hasFeature} says which {@link Feature}s of
 * those operations a volume has. Other optional methods (activation, notes, streams) have
 * defaults that do nothing or answer "none". The SPI grows the same way (a new default method),
 * so that plugin jars built against an older SPI keep working ({@link StorageApi}).
 */
public interface Storage {
    StorageConfig config();

    /** Parses the part of a volume id after the storage id. */
    VolumeName parseVolname(String volname);

    /** Where the volume lives on this host (file or block device); nothing needs to exist. */
    Path path(VolumeName volume);

    /**
     * The volume name (the part of the volume id after the storage id) of a path on this storage,
     * if the path is one of its volumes (pve's {@code path_to_volume_id}).
     */
    default Optional<String> volnameForPath(Path path) {
        return Optional.empty();
    }

    /** Allocates a volume and returns its volume name. */
    String allocImage(AllocRequest request);

    /**
     * Frees a volume. A plugin that must do slow work after the fast part (zeroing a removed LV)
     * returns it as a task, which the engine runs after releasing the storage lock.
     *
     * @throws NoSuchVolumeException when the volume does not exist (the engine then warns and succeeds, as pve)
     */
    Optional<Runnable> freeImage(VolumeName volume);

    /**
     * Work an interrupted earlier run left on this storage (LVM: {@code del-*} volumes whose wipe
     * did not finish), found with the storage lock held; empty when there is none. The engine runs
     * the task after releasing the lock ({@code vsm cleanup <storage>}).
     */
    default Optional<PendingCleanup> pendingCleanup() {
        return Optional.empty();
    }

    /** The images (VM and container disks) on this storage, of one owner when {@code vmid} is not null. */
    List<VolumeInfo> listImages(Integer vmid);

    /** The volumes of the given content types, of one owner when {@code vmid} is not null. */
    default List<VolumeInfo> listVolumes(Integer vmid, Set<ContentType> types) {
        if (types.contains(ContentType.IMAGES) || types.contains(ContentType.ROOTDIR)) {
            return listImages(vmid).stream()
                    .filter(v -> types.contains(v.content()))
                    .toList();
        }
        return List.of();
    }

    /** Size, format, allocation and backing of one volume. */
    ImageInfo volumeSizeInfo(VolumeName volume);

    /**
     * The optional operations this storage implements (it overrides their default methods): the
     * one declaration of what it can do beyond the required methods. The engine calls an optional
     * operation's method only when it is listed here, and refuses otherwise with
     * {@link Operation#unsupportedBy}. Default: none.
     */
    default Set<Operation> operations() {
        return Set.of();
    }

    /** Grows a volume to {@code sizeBytes}. Optional: {@link Operation#RESIZE}. */
    default void volumeResize(VolumeName volume, long sizeBytes) {
        throw Operation.RESIZE.unsupportedBy(config());
    }

    /** Turns a volume into a base (template) volume and returns its new volume name. Optional: {@link Operation#CREATE_BASE}. */
    default String createBase(VolumeName volume) {
        throw Operation.CREATE_BASE.unsupportedBy(config());
    }

    /** Makes a linked clone of a base volume for {@code vmid} and returns its volume name. Optional: {@link Operation#CLONE}. */
    default String cloneImage(VolumeName base, int vmid) {
        throw Operation.CLONE.unsupportedBy(config());
    }

    /**
     * A linked clone for {@code vmid} of a base volume, or of a snapshot of a volume when
     * {@code snapshot} is not null; returns its volume name. Storages that cannot clone from
     * snapshots keep this default.
     */
    default String cloneImage(VolumeName volume, int vmid, String snapshot) {
        if (snapshot == null) {
            return cloneImage(volume, vmid);
        }
        throw StorageException.badInput(
                "storage '%s' (type %s) cannot clone from snapshots", config().id(), config().type());
    }

    /** Makes snapshot {@code snapshot} of a volume (pve's {@code volume_snapshot}). The name is valid ({@link SnapshotNames}). */
    default void volumeSnapshot(VolumeName volume, String snapshot) {
        throw Operation.SNAPSHOT.unsupportedBy(config());
    }

    /** Deletes a volume's snapshot (pve's {@code volume_snapshot_delete}). */
    default void volumeSnapshotDelete(VolumeName volume, String snapshot) {
        throw Operation.SNAPSHOT.unsupportedBy(config());
    }

    /** Puts a volume back to the state of one of its snapshots (pve's {@code volume_snapshot_rollback}). */
    default void volumeSnapshotRollback(VolumeName volume, String snapshot) {
        throw Operation.SNAPSHOT.unsupportedBy(config());
    }

    // --- volume attributes (pve's get_volume_attribute / update_volume_attribute)

    /**
     * A volume's notes: empty when the volume cannot have notes, {@code ""} when it has none. The
     * engine calls it with the storage activated.
     */
    default Optional<String> volumeNotes(VolumeName volume) {
        return Optional.empty();
    }

    /**
     * Sets a volume's notes; null or {@code ""} removes them. Called with the storage lock held.
     * Optional: {@link Operation#UPDATE_ATTRIBUTES}.
     */
    default void updateVolumeNotes(VolumeName volume, String notes) {
        throw Operation.UPDATE_ATTRIBUTES.unsupportedBy(config());
    }

    /** Whether a volume is protected from removal and pruning. */
    default boolean volumeProtected(VolumeName volume) {
        return false;
    }

    /**
     * Protects a volume or lifts its protection. Called with the storage lock held. Optional:
     * {@link Operation#UPDATE_ATTRIBUTES}.
     */
    default void updateVolumeProtected(VolumeName volume, boolean value) {
        throw Operation.UPDATE_ATTRIBUTES.unsupportedBy(config());
    }

    /** The names of a volume's snapshots, oldest first ({@code vsm info}); empty when it has none or cannot have any. */
    default List<String> volumeSnapshots(VolumeName volume) {
        return List.of();
    }

    /**
     * Every layer of a volume's snapshots (pve's {@code volume_snapshot_info}, plugin API 15):
     * for a volume chain {@code current} first, then each snapshot down to the oldest, as
     * {@link SnapshotLayer} says. The default reports the names of {@link #volumeSnapshots}, newest
     * first, with nothing else known; empty when the volume has none.
     */
    default List<SnapshotLayer> volumeSnapshotInfo(VolumeName volume) {
        List<String> names = volumeSnapshots(volume);
        List<SnapshotLayer> layers = new java.util.ArrayList<>();
        for (int i = names.size() - 1; i >= 0; i--) {
            layers.add(
                    SnapshotLayer.builder(names.get(i)).order(names.size() - i).build());
        }
        return List.copyOf(layers);
    }

    /**
     * The file or block device of a snapshot's own layer (pve's {@code path} with a snapshot name),
     * found without activating anything; empty when the snapshot has none of its own or does not
     * exist. The default looks it up in {@link #volumeSnapshotInfo}; a storage whose info reads the
     * layers through an activation (LVM volume chains) names it directly.
     */
    default Optional<Path> snapshotPath(VolumeName volume, String snapshot) {
        return volumeSnapshotInfo(volume).stream()
                .filter(l -> l.name().equals(snapshot))
                .findFirst()
                .map(SnapshotLayer::path);
    }

    /**
     * Grows the layer of one of a volume's snapshots to {@code sizeBytes} (pve's
     * {@code volume_resize} with a snapshot name), or the volume itself when {@code snapshot} is
     * null. A manager grows the oldest snapshot's layer before it commits a larger child into it.
     * Called with the storage lock held; the default resizes the volume and refuses a snapshot.
     */
    default void volumeResize(VolumeName volume, long sizeBytes, String snapshot) {
        if (snapshot == null) {
            volumeResize(volume, sizeBytes);
            return;
        }
        throw StorageException.badInput(
                "resizing a snapshot is not supported on storage '%s' (type %s)", config().id(), config().type());
    }

    /**
     * Renames a volume's snapshot {@code from} to {@code to} (pve's {@code rename_snapshot}), both
     * valid names; the volume's data stays as it is. Called with the storage lock held; the default
     * refuses.
     */
    default void renameSnapshot(VolumeName volume, String from, String to) {
        throw StorageException.badInput(
                "renaming a snapshot is not supported on storage '%s' (type %s)", config().id(), config().type());
    }

    /**
     * The snapshots that keep a volume from going back to {@code snapshot} (pve's
     * {@code volume_rollback_is_possible} and its {@code blockers}): empty when the rollback is
     * possible. Bad input when the volume has no such snapshot. The default: any existing snapshot
     * can be rolled back to, as pve's default says.
     */
    default List<String> rollbackBlockers(VolumeName volume, String snapshot) {
        if (!volumeSnapshots(volume).contains(snapshot)) {
            throw StorageException.badInput(
                    "can't rollback, snapshot '%s' does not exist on '%s'", snapshot, volume.volname());
        }
        return List.of();
    }

    /** Capacity and state. A storage that cannot be reached is {@link StorageStatus#INACTIVE}, not an error. */
    StorageStatus status();

    /**
     * {@link #activate()}, then {@link #status()}, in one call ({@code vsm status} of a storage
     * not activated yet): a plugin that probes a file system that may hang can do both in one
     * probe, one hand-off to a thread that may be left behind instead of several.
     */
    default StorageStatus activateAndStatus() {
        activate();
        return status();
    }

    /**
     * Renames a volume (pve's {@code rename_volume}): to another owner, another name, or both.
     *
     * @param targetVmid the new owner
     * @param targetName the new file or LV name, or null for the owner's next free disk name
     * @return the new volume name
     */
    default String renameVolume(VolumeName volume, int targetVmid, String targetName) {
        throw Operation.RENAME.unsupportedBy(config());
    }

    /**
     * Zeroes a volume's data in place ({@code vsm wipe <volid>}) with the context's
     * {@link ZeroOut}; the volume stays.
     *
     * @param stepMiB    the zero-out step in MiB, or null for the storage's own
     * @param throughput the fallback's throughput, or null for the storage's own
     */
    default void wipeVolume(VolumeName volume, Integer stepMiB, String throughput) {
        throw Operation.WIPE.unsupportedBy(config());
    }

    default void activate() {}

    default void deactivate() {}

    /**
     * Makes a volume usable on this host (pve's {@code activate_volume}): an LV is activated (on
     * LVM exclusively, {@code lvchange -aey}, so that on a volume group shared between nodes only
     * this one has it; a qcow2 volume with its whole chain). Does nothing by default.
     */
    default void activateVolume(VolumeName volume) {}

    /** Undoes {@link #activateVolume(VolumeName)} (pve's {@code deactivate_volume}). Does nothing by default. */
    default void deactivateVolume(VolumeName volume) {}

    /**
     * Activates a volume, or one of its snapshots when {@code snapshot} is not null (pve's
     * {@code activate_volume} with a snapshot name), for a guest or a program to read it. The
     * default activates the volume, whose snapshots live in it or beside it, after checking that
     * the snapshot exists ({@link #volumeSnapshots}); a storage whose snapshots are activated on
     * their own (LVM-thin) overrides it.
     */
    default void activateVolume(VolumeName volume, String snapshot) {
        if (snapshot != null && !volumeSnapshots(volume).contains(snapshot)) {
            throw StorageException.badInput("snapshot '%s' does not exist on '%s'", snapshot, volume.volname());
        }
        activateVolume(volume);
    }

    /**
     * Deactivates a volume, or one of its snapshots when {@code snapshot} is not null (pve's
     * {@code deactivate_volume} with a snapshot name). The default deactivates the volume only
     * when no snapshot is named: a snapshot that lives in its volume goes with it.
     */
    default void deactivateVolume(VolumeName volume, String snapshot) {
        if (snapshot != null) {
            if (!volumeSnapshots(volume).contains(snapshot)) {
                throw StorageException.badInput("snapshot '%s' does not exist on '%s'", snapshot, volume.volname());
            }
            return;
        }
        deactivateVolume(volume);
    }

    /**
     * Whether the volume (or its snapshot, when {@code snapshot} is not null) supports a feature
     * (pve's {@code volume_has_feature}). The engine asks only for features whose
     * {@link Feature#operation()} is in {@link #operations()} (or that need none). The default
     * answers from {@link #operations()}: a volume that is not a base can become a template with
     * {@link Operation#CREATE_BASE}, a base volume can be cloned with {@link Operation#CLONE};
     * snapshots, copy, sparse-init and rename depend on formats the framework does not know, so a
     * storage that has them overrides this.
     */
    default boolean hasFeature(Feature feature, VolumeName volume, String snapshot) {
        if (snapshot != null && !snapshot.isEmpty()) {
            return false;
        }
        if (feature == Feature.TEMPLATE) {
            return !volume.isBase();
        }
        if (feature == Feature.CLONE) {
            return volume.isBase();
        }
        return false;
    }

    // --- import and export (vsm import, export, import-stream, copy)

    /**
     * Makes a new volume from an image with {@code qemu-img convert} ({@link QemuImg#convert}) and
     * returns its volume name. Optional: {@link Operation#IMPORT_IMAGE}.
     *
     * <p>Called without the storage lock, since a convert may take long: the storage takes it
     * itself ({@link StorageContext#locks()}) around what must not race with other changes
     * (choosing a name, allocating). When the import fails or is stopped it leaves no volume behind.
     */
    default String importImage(ImageImport request) {
        throw Operation.IMPORT_IMAGE.unsupportedBy(config());
    }

    /**
     * The stream formats a volume can be exported in (pve's {@code volume_export_formats}). The
     * framework writes the stream from {@link #path} and {@link #volumeSizeInfo}; empty (the
     * default) means the storage cannot export, and {@code vsm export} is refused.
     */
    default Set<StreamFormat> exportFormats(VolumeName volume, boolean withSnapshots) {
        return Set.of();
    }

    /**
     * The stream formats a new volume of {@code volumeFormat} can be imported from (pve's
     * {@code volume_import_formats}). The framework allocates the volume ({@link #allocImage}),
     * writes the data to its {@link #path} and frees it again when the stream is bad; empty (the
     * default) means the storage cannot import streams.
     */
    default Set<StreamFormat> importFormats(VolumeFormat volumeFormat, boolean withSnapshots) {
        return Set.of();
    }

    /**
     * The stream formats a file of other content than images ({@code iso}, {@code vztmpl},
     * {@code snippets}, {@code import}) can be written from (pve's {@code volume_import_formats}
     * for those types); the data is the file's bytes. Empty (the default): such files cannot be
     * imported from a stream, and {@link #writeContent} is never called.
     */
    default Set<StreamFormat> contentImportFormats(VolumeName volume, boolean withSnapshots) {
        return Set.of();
    }

    /**
     * Makes the file {@code volume} names (not an image; see {@link #contentImportFormats}) with
     * {@code writer}, which is given a temporary file to fill: it gets its name only when complete
     * and never replaces a file of that name, so a failure or a crash leaves nothing listed. Called
     * without the storage lock; takes it where needed.
     */
    default void writeContent(VolumeName volume, java.util.function.Consumer<Path> writer) {
        throw StorageException.badInput(
                "storage '%s' (type %s) cannot import %s files from a stream",
                config().id(), config().type(), volume.type().id());
    }

    /**
     * Allocates a volume for {@code request} and lets {@code writer} fill it (given the path to
     * write, activated) before it counts as a volume, so that a crash while writing leaves nothing
     * that is listed and {@link #pendingCleanup} removes what it left ({@code vsm import-stream},
     * the stream half of {@code vsm copy}). A writer that throws leaves nothing either. Called
     * without the storage lock; takes it where needed.
     *
     * @return the new volume's name, or empty when this storage has no such way (the default): the
     *         framework then allocates the volume, writes it and frees it again if writing fails
     */
    default Optional<String> allocWritten(AllocRequest request, java.util.function.Consumer<Path> writer) {
        return Optional.empty();
    }

    /**
     * What the guest an import volume describes should be created with (pve's
     * {@code get_import_metadata}): for an OVF or OVA of {@code import} content, its name, CPUs,
     * memory, OS type, firmware, disks (the volumes they come from) and network cards. A disk whose
     * size the storage leaves unknown is an image the framework reads (inspected as untrusted) to
     * learn it. Optional: {@link Operation#IMPORT_METADATA}.
     */
    default ImportMetadata importMetadata(VolumeName volume) {
        throw Operation.IMPORT_METADATA.unsupportedBy(config());
    }

    /**
     * The file to read when {@code volume} is the source of an import or copy. Default: the
     * volume's path, in its format. A volume that is no file of its own (a disk inside an OVA) is
     * extracted to a temporary file, which the caller removes by closing the result.
     */
    default SourceFile sourceFile(VolumeName volume) {
        return SourceFile.of(path(volume), volume.format());
    }

    /**
     * Whether a volume just allocated reads zeros everywhere (a file, a thin volume, an LV on a
     * storage that zeroes what it frees), so that writing into it may skip runs of zeros. False by
     * default: a block device that may hold a previous owner's data gets every zero written.
     */
    default boolean newVolumesReadZeros() {
        return false;
    }

    /** The preallocation/qemu-img option hook: how this storage wants its images made. */
    default ImageOptions imageOptions() {
        return ImageOptions.of(config());
    }
}
