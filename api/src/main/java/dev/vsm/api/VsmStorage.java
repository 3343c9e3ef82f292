package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.config.ConfigEdit;
import dev.vsm.config.EditResult;
import dev.vsm.config.PruneOptions;
import dev.vsm.config.StorageConfigs;
import dev.vsm.engine.Allocation;
import dev.vsm.engine.Backups;
import dev.vsm.engine.StatusFilter;
import dev.vsm.engine.StorageManager;
import dev.vsm.env.Environment;
import dev.vsm.runtime.VsmRuntime;
import dev.vsm.spi.ImportMetadata;
import dev.vsm.spi.SnapshotLayer;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.transfer.ImportSource;
import dev.vsm.transfer.VolumeExporter;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * vsm in a Java program: the storages of one configuration and what the {@code vsm} command does
 * with their volumes (status, list, alloc, free, path, info, resize, snapshots, clone,
 * create-base, import, import-metadata, export, wipe, activation) and the configuration's changes
 * (add, set, remove) and copy, each taking a request value of this
 * package. Every request
 * is checked and refused as the command line refuses it (the same engine does both), with a
 * {@link StorageException}: {@code BAD_INPUT} for a request that cannot be right, {@code FAILED}
 * for an operation that failed.
 *
 * <p>Made by {@link #builder()}; nothing is read or opened until the first call. The
 * configuration is read once, at the first call: a program that wants to see another process's
 * edits makes a new one, as each {@code vsm} command is one. Not thread-safe: one per thread of
 * work; the storage locks it takes exclude other threads and processes on the host. {@link #close()}
 * closes the cluster connection if one was opened.
 */
public final class VsmStorage implements AutoCloseable {
    private final VsmRuntime runtime;

    private VsmStorage(VsmRuntime runtime) {
        this.runtime = runtime;
    }

    /** A builder on the command line's defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** How a {@link VsmStorage} is made; every setting is optional, the defaults are the command line's. */
    public static final class Builder {
        private Path configFile;
        private String configText;
        private Path pluginDirectory;
        private Path lockDirectory;
        private Map<String, String> environment;
        private PrintStream out = System.out;
        private PrintStream err = System.err;
        private boolean dryRun;
        private boolean quiet;
        private ClassLoader classLoader = VsmStorage.class.getClassLoader();

        private Builder() {}

        /** The configuration file; null: {@code $VSM_CONFIG}, else {@code /etc/vsm/storage.yaml}, else the built-in default. */
        public Builder configFile(Path file) {
            this.configFile = file;
            this.configText = null;
            return this;
        }

        /** The configuration as YAML text, kept in memory instead of a file. */
        public Builder configText(String yaml) {
            this.configText = yaml;
            if (yaml != null) {
                this.configFile = null;
            }
            return this;
        }

        /** The drop-in plugins' directory; null: {@code $VSM_PLUGIN_DIR}, the configuration's, {@code /usr/share/vsm/plugins}. */
        public Builder pluginDirectory(Path dir) {
            this.pluginDirectory = dir;
            return this;
        }

        /** Where the lock files live (made mode 0700); null: {@code $VSM_LOCK_DIR}, else the default. */
        public Builder lockDirectory(Path dir) {
            this.lockDirectory = dir;
            return this;
        }

        /**
         * The environment vsm reads its {@code VSM_*} settings from and runs its commands in
         * (qemu-img, lvm2, blkdiscard); null: this process's.
         */
        public Builder environment(Map<String, String> variables) {
            this.environment = variables == null ? null : Map.copyOf(variables);
            return this;
        }

        /** Where messages (what was allocated or freed, dry-run lines, progress) and warnings go. */
        public Builder output(PrintStream out, PrintStream err) {
            this.out = requireNonNull(out, "out");
            this.err = requireNonNull(err, "err");
            return this;
        }

        /** Nothing changes: each change and each command it would run is printed as a {@code + } line. */
        public Builder dryRun(boolean dryRun) {
            this.dryRun = dryRun;
            return this;
        }

        /** No progress display. */
        public Builder quiet(boolean quiet) {
            this.quiet = quiet;
            return this;
        }

        /** Where the built-in plugins (and {@code vsm-cluster}) are found; by default vsm's own class loader. */
        public Builder classLoader(ClassLoader loader) {
            this.classLoader = requireNonNull(loader, "loader");
            return this;
        }

        public VsmStorage build() {
            return new VsmStorage(VsmRuntime.builder()
                    .configFile(configFile)
                    .configText(configText)
                    .pluginDirectory(pluginDirectory)
                    .lockDirectory(lockDirectory)
                    .environment(environment == null ? Environment.system() : Environment.of(environment))
                    .output(out, err)
                    .dryRun(dryRun)
                    .quiet(quiet)
                    // in cluster mode every call needs quorum, as a changing command does
                    .changing(true)
                    .cluster(new ServiceCluster(classLoader))
                    .classLoader(classLoader)
                    .build());
        }
    }

    private StorageManager manager() {
        return runtime.manager();
    }

    /** The storages' state, sorted by id ({@code vsm status}). */
    public List<StorageState> status(StatusQuery query) {
        StatusFilter filter = StatusFilter.ALL
                .storage(query.storage())
                .content(query.content())
                .enabledOnly(query.enabledOnly())
                .target(query.target());
        return manager().status(filter).stream()
                .map(r -> new StorageState(
                        r.storage(),
                        r.type(),
                        r.content(),
                        r.enabled(),
                        r.shared(),
                        r.status().active(),
                        r.status().total(),
                        r.status().used(),
                        r.status().avail(),
                        r.status().warnings(),
                        r.enabled() ? Set.copyOf(manager().schema(r.storage()).formats()) : Set.of(),
                        r.enabled() ? manager().defaultFormat(r.storage()) : null))
                .toList();
    }

    /**
     * The configuration's storages, sorted by id, each with its properties as the configuration
     * gives them (typed: lists, booleans, numbers).
     */
    public List<StorageConfig> configuration() {
        StorageConfigs config = runtime.config();
        return config.ids().stream().map(config::require).toList();
    }

    /** The configuration's digest (pve's SHA-1 {@code digest} of storage.cfg), as {@code vsm status} gives it. */
    public String configDigest() {
        return runtime.config().digest();
    }

    /**
     * Adds a storage to the configuration ({@code vsm add}, pve's {@code POST /storage}): a loaded
     * type, a new id, every value valid and every required property given, the plugin's add hook
     * (and, as pve, an activation when the storage is enabled here: one that cannot work is not
     * kept); written atomically under the configuration's lock. Refused ({@code BAD_INPUT}) with
     * pve's messages, nothing written.
     */
    public ConfigChange addStorage(NewStorage storage) {
        return change(storage.storage(), new ConfigEdit.Add(storage.type(), storage.storage(), storage.properties()));
    }

    /**
     * Changes a storage's properties ({@code vsm set}, pve's {@code PUT /storage/{storage}}), with
     * pve's {@code delete} and {@code digest}: a stale digest, an unknown, fixed or required
     * property to delete, or one both set and deleted is refused ({@code BAD_INPUT}) and nothing
     * is written.
     */
    public ConfigChange updateStorage(StorageUpdate update) {
        VolumeId.checkStorageId(update.storage());
        return change(
                update.storage(),
                new ConfigEdit.Update(update.storage(), update.set(), update.delete(), update.digest()));
    }

    /**
     * Removes a storage from the configuration ({@code vsm remove}, pve's
     * {@code DELETE /storage/{storage}}); its data stays. A storage that is another's base is refused.
     */
    public ConfigChange removeStorage(String storage) {
        VolumeId.checkStorageId(storage);
        return change(storage, new ConfigEdit.Remove(storage));
    }

    private ConfigChange change(String storage, ConfigEdit edit) {
        EditResult r = runtime.editConfig(edit);
        return new ConfigChange(
                storage,
                r.before().storage(storage).orElse(null),
                r.after().storage(storage).orElse(null),
                r.after().digest(),
                r.written(),
                r.changes());
    }

    /** The storage types of the loaded plugins (built-in and drop-in), sorted: the types {@code vsm add} takes. */
    public SortedSet<String> storageTypes() {
        return new TreeSet<>(runtime.registry().plugins().keySet());
    }

    /** The name of this node: {@code $VSM_NODE}, cluster mode's node name, else the host's name ({@code uname -n}). */
    public String nodeName() {
        return runtime.context().nodeName();
    }

    /** The volumes of a storage, sorted by volume id ({@code vsm list}). */
    public List<VolumeInfo> list(ListQuery query) {
        return manager().list(query.storage(), query.content(), query.vmid());
    }

    /** Allocates a volume and returns its id ({@code vsm alloc}). */
    public VolumeId alloc(NewVolume volume) {
        return manager()
                .alloc(Allocation.of(volume.storage(), volume.vmid(), volume.sizeKib())
                        .name(volume.name())
                        .format(volume.format() == null ? null : volume.format().id())
                        .preallocation(volume.preallocation()));
    }

    /** Frees a volume ({@code vsm free}); a base volume that linked clones still use is refused. */
    public void free(VolumeId volume) {
        manager().free(volume);
    }

    /**
     * The guest that owns a volume, from its name as its storage's plugin parses it (pve's
     * {@code parse_volname}); null for a volume no guest owns. Nothing is read or activated; a
     * name the plugin refuses is bad input.
     */
    public Integer owner(VolumeId volume) {
        return manager().parse(volume).vmid();
    }

    /** Where a volume lives; nothing needs to exist, nothing is activated ({@code vsm path}). */
    public Path path(VolumeId volume) {
        return manager().path(volume);
    }

    /** A volume's image details, features and snapshots ({@code vsm info}). */
    public VolumeDetails info(VolumeId volume) {
        StorageManager.VolumeDetails d = manager().info(volume);
        return new VolumeDetails(
                d.volid(),
                d.path(),
                d.name().type(),
                d.name().vmid(),
                d.name().isBase(),
                d.image().format(),
                d.image().virtualSize(),
                d.image().actualSize(),
                d.backingVolid() == null ? null : VolumeId.parse(d.backingVolid()),
                d.features(),
                d.snapshots(),
                manager().snapshotInfo(volume));
    }

    /** Grows a volume ({@code vsm resize}); returns its new size in bytes. */
    public long resize(Resize resize) {
        return manager().resize(resize.volume(), resize.bytes(), resize.relative(), resize.snapshot());
    }

    /**
     * Every layer of a volume's snapshots (pve's {@code volume_snapshot_info}): for a volume chain
     * {@code current} first, then each snapshot down to the oldest, with order, parent, child,
     * file or device, volume id, virtual size and creation time; for snapshots kept inside an image
     * or beside the volume what they have ({@link SnapshotLayer}). Empty for a volume without
     * snapshots ({@code vsm info}'s layers).
     */
    public List<SnapshotLayer> snapshotInfo(VolumeId volume) {
        return manager().snapshotInfo(volume);
    }

    /** Renames a volume's snapshot ({@code vsm rename-snapshot}, pve's {@code rename_snapshot}). */
    public void renameSnapshot(SnapshotRename rename) {
        manager().renameSnapshot(rename.volume(), rename.name(), rename.newName());
    }

    /**
     * The snapshots that keep {@link #rollback} to this snapshot from being possible, newest first
     * (pve's {@code volume_rollback_is_possible} with its blockers; {@code vsm rollback-check}): empty
     * when it is possible. A snapshot that does not exist is refused ({@code BAD_INPUT}).
     */
    public List<String> rollbackBlockers(Snapshot snapshot) {
        return manager().rollbackBlockers(snapshot.volume(), snapshot.name());
    }

    /**
     * Activates a volume before its path is opened ({@code vsm activate}, pve's
     * {@code activate_volume}): on LVM exclusively on this node ({@code lvchange -aey}), a qcow2
     * volume with its whole chain; on a file storage the file must exist.
     */
    public void activate(VolumeId volume) {
        manager().activateVolume(volume, null);
    }

    /** Activates one of a volume's snapshots ({@code vsm activate --snapshot}); LVM-thin activates its LV. */
    public void activate(Snapshot snapshot) {
        manager().activateVolume(snapshot.volume(), snapshot.name());
    }

    /** Deactivates a volume ({@code vsm deactivate}, pve's {@code deactivate_volume}). */
    public void deactivate(VolumeId volume) {
        manager().deactivateVolume(volume, null);
    }

    /** Deactivates one of a volume's snapshots ({@code vsm deactivate --snapshot}). */
    public void deactivate(Snapshot snapshot) {
        manager().deactivateVolume(snapshot.volume(), snapshot.name());
    }

    /** Makes a snapshot of a volume ({@code vsm snapshot}). */
    public void snapshot(Snapshot snapshot) {
        manager().snapshot(snapshot.volume(), snapshot.name());
    }

    /** Rolls a volume back to one of its snapshots ({@code vsm rollback}). */
    public void rollback(Snapshot snapshot) {
        manager().rollback(snapshot.volume(), snapshot.name());
    }

    /** Deletes a volume's snapshot ({@code vsm snapshot-delete}). */
    public void deleteSnapshot(Snapshot snapshot) {
        manager().snapshotDelete(snapshot.volume(), snapshot.name());
    }

    /** A linked clone; returns its id ({@code vsm clone}). */
    public VolumeId clone(Clone clone) {
        return manager().cloneVolume(clone.source(), Allocation.checkVmid(clone.vmid()), clone.snapshot());
    }

    /**
     * A full copy of a volume as a new volume; returns its id ({@code vsm copy}, or pve's copy
     * with a named target): converted by qemu-img when the target storage imports images, else
     * streamed in a format both storages take; the storages' bandwidth limit for a copy applies.
     */
    public VolumeId copy(CopyVolume copy) {
        var transfers = runtime.transfers();
        if (copy.target() != null) {
            return transfers.copyTo(copy.source(), copy.target()).volid();
        }
        VolumeFormat format = copy.format();
        return transfers
                .copy(
                        copy.source(),
                        copy.targetStorage(),
                        copy.vmid() == null ? null : Allocation.checkVmid(copy.vmid()),
                        format == null ? null : format.id(),
                        null,
                        null,
                        null,
                        false)
                .volid();
    }

    /** Turns a volume into a base volume; returns its new id ({@code vsm create-base}). */
    public VolumeId createBase(CreateBase request) {
        return manager().createBase(request.volume());
    }

    /** Imports a disk image as a new volume; returns its id ({@code vsm import}). */
    public VolumeId importImage(ImportImage request) {
        VolumeId.checkStorageId(request.storage());
        int vmid = Allocation.checkVmid(request.vmid());
        var imports = runtime.transfers().imports();
        try (ImportSource source = imports.source(request.source(), request.sourceFormat(), request.blockDevice())) {
            VolumeFormat format = request.format();
            return imports.importImage(
                    request.storage(), vmid, source, format == null ? null : format.id(), request.name());
        }
    }

    /**
     * Sets a backup's notes and protection ({@code vsm update-attributes}, pve's
     * {@code update_volume_attribute}): each when not null; empty notes remove them. A protected
     * backup is neither freed nor pruned.
     */
    public void updateAttributes(VolumeId volume, String notes, Boolean isProtected) {
        new Backups(manager(), ZoneId.systemDefault()).updateAttributes(volume, notes, isProtected);
    }

    /**
     * Marks a storage's backups by retention options and, unless a dry run, removes those marked
     * {@code remove} ({@code vsm prune-backups}, pve's {@code prune_backups}); a protected backup is
     * kept. Returns every backup considered with its mark; a removal that failed fails the whole
     * call once the others were tried.
     */
    public List<PruneMark> pruneBackups(PruneBackups prune) {
        Map<String, Long> keep;
        try {
            keep = prune.keep() == null ? null : PruneOptions.parse(prune.keep());
        } catch (StorageException e) {
            throw StorageException.badInput("prune-backups: %s", e.getMessage());
        }
        return new Backups(manager(), ZoneId.systemDefault())
                .prune(prune.storage(), keep, prune.vmid(), prune.type(), prune.dryRun()).stream()
                        .map(e -> new PruneMark(e.volid(), e.ctime(), e.mark(), e.type(), e.vmid()))
                        .toList();
    }

    /**
     * Refuses, before a byte is read, an {@link Upload} that {@link #upload} would refuse for its
     * name, its content or its storage (a name that is a path or does not parse, content the
     * storage does not hold or cannot write, a file that exists).
     */
    public VolumeId checkUpload(Upload upload) {
        VolumeId volid = upload.volume();
        runtime.transfers().streamImporter().checkFile(volid);
        return volid;
    }

    /**
     * Makes a file of iso, vztmpl or import content from an {@link Upload}'s bytes (pve's
     * {@code upload}): written to a temporary in the storage, checked (its checksum, and an iso or
     * an import image as an untrusted image: nothing that names data outside itself) and only then
     * named; refused or failed, it leaves nothing. Never replaces a file. Returns its volume id.
     */
    public VolumeId upload(Upload upload) {
        VolumeId volid = checkUpload(upload);
        MessageDigest digest = upload.digest();
        InputStream in = digest == null ? upload.data() : new DigestInputStream(upload.data(), digest);
        return runtime.transfers().streamImporter().importFile(volid, in, temp -> {
            if (digest != null) {
                upload.verify(digest);
            }
        });
    }

    /**
     * What the guest an OVF or OVA of {@code import} content describes should be created with
     * ({@code vsm import-metadata}, pve's {@code import-metadata}); a hostile descriptor is refused
     * with {@code BAD_INPUT}.
     */
    public ImportMetadata importMetadata(VolumeId volume) {
        return runtime.transfers().imports().importMetadata(volume);
    }

    /** Writes a volume as a stream; returns the data bytes written after the size header ({@code vsm export}). */
    public long export(Export export) {
        return runtime.transfers()
                .exporter()
                .export(
                        export.volume(),
                        export.format(),
                        VolumeExporter.Snapshots.of(export.withSnapshots()),
                        export.out(),
                        null);
    }

    /**
     * Zeroes a volume or a whole block device ({@code vsm wipe}); a device is refused as
     * {@link Wipe} says, before anything is written. Calling it is the command line's {@code --yes}.
     */
    public void wipe(Wipe wipe) {
        if (wipe.volume() != null) {
            manager().wipe(wipe.volume(), true, wipe.stepMiB(), wipe.throughput());
        } else {
            runtime.deviceWipe().wipe(wipe.device(), wipe.force(), true, wipe.stepMiB(), wipe.throughput());
        }
    }

    /** Closes the cluster connection, if one was opened. */
    @Override
    public void close() {
        runtime.close();
    }
}
