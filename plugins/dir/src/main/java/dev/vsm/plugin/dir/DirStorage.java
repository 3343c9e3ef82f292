package dev.vsm.plugin.dir;

import static java.util.Objects.requireNonNull;

import dev.vsm.files.DirLayout;
import dev.vsm.files.DirVolumeNames;
import dev.vsm.files.DiskNames;
import dev.vsm.files.ImageFileName;
import dev.vsm.files.PathVolume;
import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.Command;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.Feature;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.ImageImport;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.Operation;
import dev.vsm.spi.Preallocation;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageStatus;
import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One configured dir storage (pve's {@code DirPlugin} with the file-based behaviour of its base
 * {@code Plugin}). Every change goes through the context's {@code files()}, {@code qemuImg()} and
 * {@code commands()}, so that {@code --dry-run} prints it; reads use {@code java.nio} directly.
 */
final class DirStorage implements Storage {
    private static final String CHATTR = "/usr/bin/chattr";
    /** A backup's notes are in {@code <archive>.notes}. */
    static final String NOTES_EXT = ".notes";
    /** A backup is protected while {@code <archive>.protected} exists. */
    static final String PROTECTED_EXT = ".protected";

    private static final Set<Operation> OPERATIONS = Set.of(
            Operation.SNAPSHOT,
            Operation.RESIZE,
            Operation.CREATE_BASE,
            Operation.CLONE,
            Operation.RENAME,
            Operation.IMPORT_IMAGE,
            Operation.UPDATE_ATTRIBUTES);

    private final StorageConfig config;
    private final StorageContext context;
    private final DirLayout layout;
    private final DirOptions options;
    private final MountTable mounts;
    /** The zone backup names are in, asked for when a listing needs it (the JDK reads the zone's rules file). */
    private final Supplier<ZoneId> zone;

    DirStorage(StorageConfig config, StorageContext context) {
        this(config, context, new MountTable(MountTable.PROC_MOUNTS), ZoneId::systemDefault);
    }

    DirStorage(StorageConfig config, StorageContext context, MountTable mounts, Supplier<ZoneId> zone) {
        this.config = requireNonNull(config, "config");
        this.context = requireNonNull(context, "context");
        this.layout = DirLayout.of(config);
        this.options = DirOptions.of(config);
        this.mounts = requireNonNull(mounts, "mounts");
        this.zone = requireNonNull(zone, "zone");
    }

    @Override
    public StorageConfig config() {
        return config;
    }

    @Override
    public VolumeName parseVolname(String volname) {
        return DirVolumeNames.parse(volname);
    }

    @Override
    public Path path(VolumeName volume) {
        return volumePath(volume);
    }

    /** The volume's path, refused (bad input) when reaching it would follow a symbolic link (see {@link DirLayout#linkOut}). */
    private Path volumePath(VolumeName volume) {
        return inside(volume.volname(), layout.path(volume));
    }

    /** {@code file}, the path of volume {@code volname}, unless it leads out of the storage through a link. */
    private Path inside(String volname, Path file) {
        return layout.inside(config.id(), volname, file);
    }

    // --- activation and status (pve DirPlugin/Plugin activate_storage, status)

    @Override
    public void activate() {
        activate(false);
    }

    @Override
    public StorageStatus activateAndStatus() {
        return activate(true);
    }

    /**
     * Activation's file-system work, in one probe, so that a hung mount makes activation fail
     * after {@link Probes#LIMIT}, not hang: the directories made, where the path leads, what it
     * must not lead to, one directory per content type; and with {@code measure} the capacity as
     * well ({@link #activateAndStatus}: {@code vsm status} of 50 storages hands 50 probes to a
     * thread, not 150).
     *
     * @return the storage's status with {@code measure}, else {@link StorageStatus#INACTIVE}
     */
    private StorageStatus activate(boolean measure) {
        Path base = layout.basePath();
        Optional<Path> mountPoint = options.mountPoint();
        if (mountPoint.isPresent() && !mounts.isMounted(mountPoint.get())) {
            throw StorageException.failed(
                    "unable to activate storage '%s' - directory is expected to be a mount point but is not mounted: '%s'",
                    config.id(), mountPoint.get());
        }
        Optional<StorageStatus> activated = Probes.within(Probes.LIMIT, () -> {
            if (options.createBasePath()) {
                context.files().createDirectories(base);
            }
            Path real = realDirectory(base);
            if (real == null && !(context.dryRun() && options.createBasePath())) {
                throw unreachable(base);
            }
            checkNotRoot(base, real);
            Set<ContentType> content = config.content(DirPlugin.schemaDefaultContent());
            if (options.createSubdirs()) {
                createContentDirectories(content);
            }
            checkOneDirectoryPerContent(content);
            return measure ? capacity(base) : StorageStatus.INACTIVE;
        });
        return activated.orElseThrow(() -> unreachable(base));
    }

    private StorageException unreachable(Path base) {
        return StorageException.failed(
                "unable to activate storage '%s' - directory '%s' does not exist or is unreachable", config.id(), base);
    }

    /** Where {@code path} leads; {@code path} itself when that cannot be told. */
    private static Path realOr(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            return path;
        }
    }

    /** Where {@code base} leads, if that is a directory; null if it is none or cannot be reached. */
    private static Path realDirectory(Path base) {
        try {
            Path resolved = base.toRealPath();
            return Files.isDirectory(resolved) ? resolved : null;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * A path that resolves to {@code /} (a symbolic link to it, or to a link to it), or into
     * {@code /proc}, {@code /sys}, {@code /dev} or {@code /run}, is refused: vsm would otherwise
     * make {@code /images}, {@code /template} ... and keep guests' disks among the system's files.
     * The configuration's own {@code path: /} (or {@code /dev/...}) is refused when it is read.
     *
     * @param real where {@code base} resolves to, if it is a directory (else null)
     */
    private void checkNotRoot(Path base, Path real) {
        if (real == null) {
            return;
        }
        if (real.getNameCount() == 0) {
            throw StorageException.badInput(
                    "storage '%s': path '%s' resolves to the root directory '/' - "
                            + "refusing to keep a storage there (point 'path' at a directory of its own)",
                    config.id(), base);
        }
        for (String system : DirPlugin.SYSTEM_DIRS) {
            if (real.startsWith(system)) {
                throw StorageException.badInput(
                        "storage '%s': path '%s' resolves to '%s', in %s - refusing to keep a storage "
                                + "there (point 'path' at a directory of its own)",
                        config.id(), base, real, system);
            }
        }
    }

    private void createContentDirectories(Set<ContentType> content) {
        for (ContentType type : sortedById(content, true)) {
            Path subdir = layout.subdir(type);
            try {
                context.files().createDirectories(subdir);
            } catch (StorageException e) {
                String reason = e.getMessage();
                String hint = reason.matches("(?is).*(permission\\s+denied|read-?\\s?only\\s+file\\s?system).*")
                        ? " - ensure that you have read and write access to your storage!"
                        : "";
                throw StorageException.failed(
                        e,
                        "failed to create content directory '%s' for content '%s' - %s%s",
                        subdir,
                        type.id(),
                        reason,
                        hint);
            }
        }
    }

    /** The configured content types in pve's (sorted) order; with {@code forDirectories}, backup too when rootdir is on. */
    private static List<ContentType> sortedById(Set<ContentType> content, boolean forDirectories) {
        List<ContentType> types = new ArrayList<>();
        for (ContentType t : ContentType.values()) {
            boolean wanted = content.contains(t)
                    || (forDirectories && t == ContentType.BACKUP && content.contains(ContentType.ROOTDIR));
            if (wanted && t != ContentType.NONE) {
                types.add(t);
            }
        }
        types.sort((a, b) -> a.id().compareTo(b.id()));
        return types;
    }

    /**
     * pve's check that no two content types share a directory (through {@code content-dirs} or
     * symbolic links), by device and inode: one stat per directory (inside activation's probe).
     * The message names the directory's real path, as pve does.
     */
    private void checkOneDirectoryPerContent(Set<ContentType> content) {
        Map<Object, ContentType> seen = new HashMap<>();
        for (ContentType type : sortedById(content, false)) {
            Path subdir = layout.subdir(type);
            Object key;
            try {
                key = Files.readAttributes(subdir, BasicFileAttributes.class).fileKey();
            } catch (IOException e) {
                continue; // not there: pve's abs_path gives undef, and the type is skipped
            }
            if (key != null && seen.putIfAbsent(key, type) != null) {
                throw StorageException.failed(
                        "storage '%s' uses directory %s for multiple content types", config.id(), realOr(subdir));
            }
        }
    }

    @Override
    public StorageStatus status() {
        Optional<Path> mountPoint = options.mountPoint();
        if (mountPoint.isPresent() && !mounts.isMounted(mountPoint.get())) {
            return StorageStatus.INACTIVE;
        }
        Path base = layout.basePath();
        return Probes.within(Probes.LIMIT, () -> capacity(base)).orElse(StorageStatus.INACTIVE);
    }

    /** The file system's capacity at {@code base}; inactive when it is not a directory. */
    private static StorageStatus capacity(Path base) {
        if (!Files.isDirectory(base)) {
            return StorageStatus.INACTIVE;
        }
        // java.io.File's space calls are one statvfs each; a FileStore reads the mount table first
        File dir = base.toFile();
        long total = dir.getTotalSpace();
        if (total <= 0) {
            return StorageStatus.INACTIVE;
        }
        return StorageStatus.of(total, total - dir.getFreeSpace(), dir.getUsableSpace(), true);
    }

    // --- allocation and removal (pve Plugin alloc_image, free_image)

    @Override
    public String allocImage(AllocRequest request) {
        int vmid = request.vmid();
        VolumeFormat format = request.format();
        Path imageDir = layout.imageDir(vmid);
        String name = request.name() != null && !request.name().isEmpty()
                ? request.name()
                : DiskNames.nextFree(
                        new ImageLister(config.id(), layout, context.qemuImg(), context.console()).volnames(vmid),
                        config.id(),
                        vmid,
                        format,
                        true,
                        true);
        VolumeFormat extension = ImageFileName.parse(name).format();
        if (extension != format) {
            throw StorageException.badInput(
                    "illegal name '%s' - wrong extension for format ('%s != '%s')", name, extension, format);
        }
        Path path = inside(vmid + "/" + name, imageDir.resolve(name));
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("disk image '%s' already exists", path);
        }
        if (format == VolumeFormat.SUBVOL && request.sizeKib() != 0) {
            throw StorageException.badInput("storage does not support subvol quotas");
        }

        checkFreeSpace(
                context.qemuImg().preallocation(format.id(), imageOptions(), false),
                () -> Math.multiplyExact(request.sizeKib(), 1024L));

        context.files().createDirectories(imageDir);
        partials().removeAbandoned(imageDir);
        if (format == VolumeFormat.SUBVOL) {
            try {
                createSubvol(path);
            } catch (RuntimeException e) {
                removePartialImage(path, imageDir);
                throw e;
            }
        } else {
            createThenRename(
                    path, imageDir, temp -> context.qemuImg().create(temp, format, request.sizeKib(), imageOptions()));
        }
        return vmid + "/" + name;
    }

    /**
     * Lets {@code create} write the image under a temporary name and renames it to {@code path}
     * once complete (see {@link PartialImages}); on failure the temporary file and an emptied
     * owner directory go. A dry run prints the command on the final path.
     *
     * <p>Durable as well as atomic: the image's data is synced before the rename, so a power cut
     * cannot leave the name on a file whose blocks never reached the disk; the owner directory
     * (holding the new name) and the images directory (holding a new owner directory) are synced
     * after it, so a reported success survives one. When that last sync fails the image is
     * removed again: a failure leaves nothing.
     */
    private void createThenRename(Path path, Path imageDir, Consumer<Path> create) {
        if (context.dryRun()) {
            create.accept(path);
            return;
        }
        HostFiles files = context.files();
        Path temp = partials().temporaryFor(path);
        try {
            files.createFile(temp); // mode 0640, which qemu-img keeps: never readable by other users
            create.accept(temp);
            files.sync(temp);
            files.move(temp, path);
        } catch (RuntimeException e) {
            removePartialImage(temp, imageDir);
            throw e;
        }
        try {
            files.sync(imageDir);
            files.sync(imageDir.getParent());
        } catch (RuntimeException e) {
            removePartialImage(path, imageDir);
            throw e;
        }
    }

    private PartialImages partials() {
        return new PartialImages(context.nodeName(), context.files());
    }

    /**
     * An image that qemu-img will preallocate ({@code falloc} or {@code full}: raw or qcow2 by
     * the storage's {@code preallocation}, a linked clone by its base's format when it gets
     * subclusters) must fit in the file system's free space: refused before anything is made, with
     * both sizes. Sparse images ({@code off}, {@code metadata}, vmdk) may overcommit, as a thin
     * pool does; they take space as the guest writes.
     *
     * @param mode  what {@link dev.vsm.spi.QemuImg#preallocation} says qemu-img will be given
     * @param bytes the image's size, asked for only when the mode writes
     */
    private void checkFreeSpace(Preallocation mode, LongSupplier bytes) {
        if (mode == null || !mode.allocatesWholeSize() || context.dryRun()) {
            return;
        }
        long requested = bytes.getAsLong();
        Optional<Long> free = Probes.within(
                Probes.LIMIT, () -> Files.getFileStore(layout.basePath()).getUsableSpace());
        if (free.isPresent() && free.get() < requested) {
            throw StorageException.failed(
                    "storage '%s': not enough free space for a preallocated image (%d bytes requested "
                            + "with preallocation=%s, %d bytes free in '%s')",
                    config.id(), requested, mode, free.get(), layout.basePath());
        }
    }

    /**
     * Temporary image files an interrupted {@code alloc}, {@code clone} or {@code import} of this
     * node left (see {@link PartialImages}), removed after the storage lock is released.
     */
    @Override
    public Optional<dev.vsm.spi.PendingCleanup> pendingCleanup() {
        PartialImages partials = partials();
        List<Path> abandoned = new ArrayList<>(partials.abandonedUnder(layout.subdir(ContentType.IMAGES)));
        abandoned.addAll(
                partials.abandoned(layout.subdir(ContentType.IMPORT))); // disks extracted from OVAs, streamed files
        for (ContentType streamed : List.of(ContentType.ISO, ContentType.VZTMPL, ContentType.SNIPPETS)) {
            abandoned.addAll(partials.abandoned(layout.subdir(streamed))); // files imported from a stream
        }
        abandoned.removeIf(p -> layout.linkOut(p).isPresent()); // never delete through a link out of the storage
        if (abandoned.isEmpty()) {
            return Optional.empty();
        }
        List<String> items = abandoned.stream()
                .map(p -> layout.basePath().relativize(p).toString())
                .toList();
        return Optional.of(dev.vsm.spi.PendingCleanup.of(
                items,
                () -> abandoned.forEach(p -> {
                    try {
                        context.files().delete(p);
                    } catch (StorageException e) {
                        if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                            throw e;
                        }
                    }
                })));
    }

    private void createSubvol(Path path) {
        try {
            context.files().createDirectories(path);
        } catch (StorageException e) {
            throw StorageException.failed(e, "unable to create subvol '%s' - %s", path, e.getMessage());
        }
    }

    /** After a failed create: the half-written file (if any) and the guest's directory (if now empty) go. */
    private void removePartialImage(Path path, Path imageDir) {
        try {
            if (FileStat.isFileOrLink(path)) {
                context.files().delete(path);
            } else if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                context.files().deleteIfEmpty(path);
            }
        } catch (StorageException cleanup) {
            context.console().warn(cleanup.getMessage());
        }
        context.files().deleteIfEmpty(imageDir);
    }

    @Override
    public Optional<Runnable> freeImage(VolumeName volume) {
        Path path = volumePath(volume);
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            // pve warns "disk image '<path>' does not exist" and reports success; nothing was removed
            throw StorageException.badInput(
                    "volume '%s:%s' does not exist (no file '%s')", config.id(), volume.volname(), path);
        }
        if (volumeProtected(volume)) {
            throw StorageException.badInput(
                    "cannot remove protected volume '%s' on '%s'", volume.volname(), config.id());
        }
        if (volume.isBase()) {
            runWarned(Command.of(CHATTR, "-i", path.toString()));
        }
        if (volume.hasFormat(VolumeFormat.SUBVOL)) {
            context.files().deleteTree(path);
        } else {
            context.files().delete(path);
        }
        if (volume.type() == ContentType.IMAGES) {
            context.files().deleteIfEmpty(path.getParent());
        }
        return Optional.empty();
    }

    // --- internal qcow2 snapshots (pve's volume_snapshot* without snapshot-as-volume-chain)

    @Override
    public void volumeSnapshot(VolumeName volume, String snapshot) {
        Path path = snapshotImage(volume, "can't snapshot this image format");
        if (volumeSnapshots(volume).contains(snapshot)) {
            throw StorageException.badInput(
                    "snapshot '%s' of volume '%s:%s' already exists", snapshot, config.id(), volume.volname());
        }
        context.qemuImg().snapshot(path, volume.format(), QemuImg.SnapshotAction.CREATE, snapshot);
    }

    @Override
    public void volumeSnapshotRollback(VolumeName volume, String snapshot) {
        Path path = snapshotImage(volume, "can't rollback snapshot this image format");
        existingSnapshot(volume, snapshot, "can't rollback, snapshot '%s' does not exist on '%s'");
        context.qemuImg().snapshot(path, volume.format(), QemuImg.SnapshotAction.APPLY, snapshot);
    }

    @Override
    public void volumeSnapshotDelete(VolumeName volume, String snapshot) {
        Path path = snapshotImage(volume, "can't delete snapshot for this image format");
        existingSnapshot(volume, snapshot, "snapshot '%s' does not exist on '%s'");
        context.qemuImg().snapshot(path, volume.format(), QemuImg.SnapshotAction.DELETE, snapshot);
    }

    @Override
    public List<String> volumeSnapshots(VolumeName volume) {
        Path path = layout.path(volume);
        if (!volume.hasFormat(VolumeFormat.QCOW2) || !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        return context.qemuImg().snapshots(path, volume.format());
    }

    /** The image of a volume that can have internal snapshots: an existing qcow2 that is no base (pve's feature table). */
    private Path snapshotImage(VolumeName volume, String wrongFormat) {
        if (!volume.hasFormat(VolumeFormat.QCOW2) || volume.type() != ContentType.IMAGES) {
            throw StorageException.badInput("%s", wrongFormat);
        }
        if (volume.isBase()) {
            throw StorageException.badInput("snapshot feature is not available for base volume '%s'", volume.volname());
        }
        Path path = layout.path(volume);
        if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("no such volume '%s'", volume.volname());
        }
        return path;
    }

    private void existingSnapshot(VolumeName volume, String snapshot, String message) {
        if (!volumeSnapshots(volume).contains(snapshot)) {
            throw StorageException.badInput(message, snapshot, volume.volname());
        }
    }

    // --- notes and protection of backups (pve's DirPlugin get/update_volume_attribute)

    @Override
    public Optional<String> volumeNotes(VolumeName volume) {
        if (volume.type() != ContentType.BACKUP) {
            return Optional.empty();
        }
        Path notes = Path.of(layout.path(volume) + NOTES_EXT);
        if (!Files.isRegularFile(notes, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.of("");
        }
        try {
            return Optional.of(ContentFileLister.decode(Files.readAllBytes(notes), Integer.MAX_VALUE));
        } catch (IOException e) {
            throw StorageException.failed(e, "unable to read '%s' - %s", notes, e.getMessage());
        }
    }

    @Override
    public void updateVolumeNotes(VolumeName volume, String notes) {
        if (volume.type() != ContentType.BACKUP) {
            throw StorageException.badInput("only backups can have notes");
        }
        Path path = Path.of(layout.path(volume) + NOTES_EXT);
        if (notes != null && !notes.isEmpty()) {
            context.files().replaceFile(path, notes.getBytes(StandardCharsets.UTF_8));
        } else if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            context.files().delete(path);
        }
    }

    @Override
    public boolean volumeProtected(VolumeName volume) {
        return volume.type() == ContentType.BACKUP
                && Files.exists(Path.of(layout.path(volume) + PROTECTED_EXT), LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public void updateVolumeProtected(VolumeName volume, boolean value) {
        if (volume.type() != ContentType.BACKUP) {
            throw StorageException.badInput("only backups support attribute 'protected'");
        }
        Path path = Path.of(layout.path(volume) + PROTECTED_EXT);
        if (volumeProtected(volume) == value) {
            return; // protection status already correct
        }
        if (value) {
            context.files().replaceFile(path, new byte[0]);
        } else {
            context.files().delete(path);
        }
    }

    /** Runs a command whose failure is only worth a warning (pve's {@code eval { run_command } ; warn $@}). */
    private void runWarned(Command command) {
        try {
            context.commands().run(command);
        } catch (StorageException e) {
            context.console().warn(e.getMessage());
        }
    }

    // --- listing and sizes

    @Override
    public List<VolumeInfo> listImages(Integer vmid) {
        return new ImageLister(config.id(), layout, context.qemuImg(), context.console()).list(vmid);
    }

    /**
     * Images are always listed as content {@code images}: vsm has no cluster VM list to tell
     * containers' volumes ({@code rootdir}) apart, so asking for {@code rootdir} alone lists no images.
     */
    @Override
    public List<VolumeInfo> listVolumes(Integer vmid, Set<ContentType> types) {
        List<VolumeInfo> volumes = new ArrayList<>();
        if (types.contains(ContentType.IMAGES)) {
            volumes.addAll(listImages(vmid));
        }
        ContentFileLister files = new ContentFileLister(config.id(), layout, zone.get(), context.console());
        for (ContentType type : ContentType.values()) {
            if (types.contains(type)
                    && type != ContentType.IMAGES
                    && type != ContentType.ROOTDIR
                    && type != ContentType.NONE) {
                volumes.addAll(files.list(type, vmid));
            }
        }
        return volumes;
    }

    @Override
    public ImageInfo volumeSizeInfo(VolumeName volume) {
        Path path = volumePath(volume);
        if (Files.isDirectory(path)) {
            return ImageInfo.builder(VolumeFormat.SUBVOL)
                    .ctime(FileStat.ctime(path))
                    .build();
        }
        if (!Files.exists(path)) {
            throw StorageException.failed(
                    "failed to stat '%s'%s", path, Files.isSymbolicLink(path) ? " - dangling symlink?" : "");
        }
        ImageInfo info = context.qemuImg().info(path, volume.format());
        if (info.ctime() == null) {
            info = info.toBuilder().ctime(FileStat.ctime(path)).build();
        }
        return info;
    }

    @Override
    public Set<Operation> operations() {
        return OPERATIONS;
    }

    @Override
    public void volumeResize(VolumeName volume, long sizeBytes) {
        if (!volume.volname().endsWith(".raw") && !volume.volname().endsWith(".qcow2")) {
            throw StorageException.badInput("can't resize this image format");
        }
        context.qemuImg().resize(volumePath(volume), volume.format(), sizeBytes, imageOptions());
    }

    // --- templates and linked clones (pve Plugin create_base, clone_image)

    @Override
    public String createBase(VolumeName volume) {
        if (volume.type() != ContentType.IMAGES) {
            throw StorageException.badInput(
                    "create_base on wrong vtype '%s'", volume.type().id());
        }
        if (volume.isBase()) {
            throw StorageException.badInput("create_base not possible with base image");
        }
        Path path = volumePath(volume);
        ImageInfo info;
        try {
            info = volumeSizeInfo(volume);
        } catch (StorageException e) {
            throw StorageException.failed(e, "file_size_info on '%s' failed", volume.volname());
        }
        if (volume.isLinkedClone()) {
            String expected = "../" + volume.baseVmid() + "/" + volume.baseName();
            if (!expected.equals(info.backingFile())) {
                throw StorageException.badInput(
                        "volname '%s' contains wrong information about parent", volume.volname());
            }
        }
        String newName = volume.name().replaceFirst("^vm-", "base-");
        String newVolname = volume.isLinkedClone()
                ? volume.baseVmid() + "/" + volume.baseName() + "/" + volume.vmid() + "/" + newName
                : volume.vmid() + "/" + newName;
        Path newPath = inside(newVolname, layout.path(DirVolumeNames.parse(newVolname)));
        if (Files.isRegularFile(newPath)) {
            throw StorageException.badInput("file '%s' already exists", newPath);
        }
        context.files().move(path, newPath);
        context.files().makeReadOnly(newPath);
        runWarned(Command.of(CHATTR, "+i", newPath.toString()));
        return newVolname;
    }

    @Override
    public String cloneImage(VolumeName base, int vmid) {
        if (base.type() != ContentType.IMAGES) {
            throw StorageException.badInput(
                    "clone_image on wrong vtype '%s'", base.type().id());
        }
        if (base.hasFormat(VolumeFormat.SUBVOL)) {
            throw StorageException.badInput("this storage type does not support clone_image on subvolumes");
        }
        if (!base.isBase()) {
            throw StorageException.badInput("clone_image only works on base images");
        }
        Path imageDir = layout.imageDir(vmid);
        String name = DiskNames.nextFree(
                new ImageLister(config.id(), layout, context.qemuImg(), context.console()).volnames(vmid),
                config.id(),
                vmid,
                VolumeFormat.QCOW2,
                true,
                true);
        String backing = "../" + base.vmid() + "/" + base.name();
        String newVolname = base.vmid() + "/" + base.name() + "/" + vmid + "/" + name;
        Path path = inside(newVolname, imageDir.resolve(name));
        checkFreeSpace(
                context.qemuImg().preallocation(base.format(), imageOptions(), true),
                () -> volumeSizeInfo(base).virtualSize());
        context.console()
                .info(String.format(
                        "clone %s: images, %s, %d to %s (base=%s)", base.volname(), name, vmid, name, backing));

        context.files().createDirectories(imageDir);
        partials().removeAbandoned(imageDir);
        createThenRename(
                path, imageDir, temp -> context.qemuImg().createBacked(temp, backing, base.format(), imageOptions()));
        return newVolname;
    }

    // --- import and export (vsm import, export, import-stream, copy)

    @Override
    public String importImage(ImageImport request) {
        return importer().importImage(request);
    }

    /** Images (raw, qcow2, vmdk) are made under a temporary name and named when written; subvols are not streamed. */
    @Override
    public Optional<String> allocWritten(AllocRequest request, java.util.function.Consumer<Path> writer) {
        if (request.format() == VolumeFormat.SUBVOL) {
            return Optional.empty();
        }
        checkFreeSpace(
                context.qemuImg().preallocation(request.format().id(), imageOptions(), false),
                () -> Math.multiplyExact(request.sizeKib(), 1024L));
        return Optional.of(importer().allocWritten(request, writer));
    }

    private DirImageImporter importer() {
        return new DirImageImporter(
                config.id(),
                layout,
                context,
                imageOptions(),
                vmid -> new ImageLister(config.id(), layout, context.qemuImg(), context.console()).volnames(vmid));
    }

    /**
     * pve's path-based {@code volume_export_formats} for images: {@code raw+size} without
     * snapshots, {@code qcow2+size} and {@code vmdk+size} (the file as it is, internal snapshots and
     * all) only with them.
     */
    @Override
    public Set<StreamFormat> exportFormats(VolumeName volume, boolean withSnapshots) {
        if (STREAMED_CONTENT.contains(volume.type())) {
            return contentImportFormats(volume, withSnapshots);
        }
        if (volume.type() != ContentType.IMAGES || volume.hasFormat(VolumeFormat.SUBVOL)) {
            return Set.of();
        }
        if (withSnapshots) {
            return volume.volumeFormat().map(DirStorage::withSnapshots).orElse(Set.of());
        }
        return Set.of(StreamFormat.RAW_SIZE);
    }

    /** pve's {@code <format>+size} of a qcow2 or vmdk image: the file as it is, its internal snapshots in it. */
    private static Set<StreamFormat> withSnapshots(VolumeFormat format) {
        return switch (format) {
            case QCOW2 -> Set.of(StreamFormat.QCOW2_SIZE);
            case VMDK -> Set.of(StreamFormat.VMDK_SIZE);
            case RAW, SUBVOL -> Set.of();
        };
    }

    /** pve's {@code volume_import}: the stream's data format must be the volume's; qcow2 and vmdk only with snapshots. */
    @Override
    public Set<StreamFormat> importFormats(VolumeFormat volumeFormat, boolean withSnapshots) {
        if (withSnapshots) {
            return withSnapshots(volumeFormat);
        }
        return volumeFormat == VolumeFormat.RAW ? Set.of(StreamFormat.RAW_SIZE) : Set.of();
    }

    /** The content other than images that pve's path-based plugins stream as {@code raw+size}: the file as it is. */
    private static final Set<ContentType> STREAMED_CONTENT =
            Set.of(ContentType.ISO, ContentType.VZTMPL, ContentType.SNIPPETS, ContentType.IMPORT);

    /**
     * pve's {@code volume_import_formats} for iso, vztmpl, snippets and import files: {@code raw+size}
     * without snapshots. A disk inside an OVA is no file of its own and is not streamed.
     */
    @Override
    public Set<StreamFormat> contentImportFormats(VolumeName volume, boolean withSnapshots) {
        if (!STREAMED_CONTENT.contains(volume.type())
                || withSnapshots
                || volume.format().startsWith("ova+")) {
            return Set.of();
        }
        return Set.of(StreamFormat.RAW_SIZE);
    }

    /**
     * The file is written under a temporary name beside it ({@link PartialImages}: a crash leaves
     * it unlisted, {@code vsm cleanup} removes it) and named under the storage lock, never over a
     * file that exists (pve: {@code dd conv=excl}, {@code file '...' already exists}).
     */
    @Override
    public void writeContent(VolumeName volume, Consumer<Path> writer) {
        if (contentImportFormats(volume, false).isEmpty()) {
            Storage.super.writeContent(volume, writer);
        }
        Path path = volumePath(volume);
        Path dir = path.getParent();
        HostFiles files = context.files();
        context.locks().withStorageLock(config.id(), () -> {
            checkAbsent(path);
            files.createDirectories(dir);
            return null;
        });
        Path temp = partials().temporaryFor(path);
        try {
            files.createFile(temp);
            writer.accept(temp);
            files.sync(temp);
            context.locks().withStorageLock(config.id(), () -> {
                checkAbsent(path);
                files.move(temp, path);
                return null;
            });
        } catch (RuntimeException e) {
            if (Files.exists(temp, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    files.delete(temp);
                } catch (StorageException cleanup) {
                    context.console().warn(cleanup.getMessage());
                }
            }
            throw e;
        }
        files.sync(dir);
    }

    private static void checkAbsent(Path path) {
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("file '%s' already exists", path);
        }
    }

    /** A disk inside an OVA is extracted to a temporary file ({@link OvaDisks}); other volumes are read where they are. */
    @Override
    public dev.vsm.spi.SourceFile sourceFile(VolumeName volume) {
        if (volume.type() == ContentType.IMPORT && volume.format().startsWith("ova+")) {
            return new OvaDisks(config.id(), context).extract(volume, volumePath(volume));
        }
        return Storage.super.sourceFile(volume);
    }

    /** A new image is a new file: it reads zeros. */
    @Override
    public boolean newVolumesReadZeros() {
        return true;
    }

    /**
     * Moves an image to another owner's directory or name (pve's {@code rename_volume}). A linked
     * clone keeps its base: its backing file {@code ../<basevmid>/<base>} resolves from any
     * owner's directory.
     */
    @Override
    public String renameVolume(VolumeName volume, int targetVmid, String targetName) {
        if (volume.type() != ContentType.IMAGES) {
            throw StorageException.badInput(
                    "rename_volume on wrong vtype '%s'", volume.type().id());
        }
        if (!hasFeature(Feature.RENAME, volume, null)) {
            // a base is immutable (chattr +i) and has linked clones that name it: the feature table leaves it out
            throw StorageException.badInput(
                    "rename feature is not available for volume '%s:%s'", config.id(), volume.volname());
        }
        Path oldPath = volumePath(volume);
        if (!FileStat.isFileOrLink(oldPath) && !Files.isDirectory(oldPath, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("storage '%s': no such volume '%s'", config.id(), volume.volname());
        }
        VolumeFormat format = ImageFileName.parse(volume.name()).format();
        String target = targetName;
        if (target == null) {
            target = DiskNames.nextFree(
                    new ImageLister(config.id(), layout, context.qemuImg(), context.console()).volnames(targetVmid),
                    config.id(),
                    targetVmid,
                    format,
                    true,
                    true);
        } else {
            VolumeFormat extension = ImageFileName.parse(target).format();
            if (extension != format) {
                throw StorageException.badInput(
                        "illegal name '%s' - wrong extension for format ('%s != '%s')", target, extension, format);
            }
        }
        Path imageDir = layout.imageDir(targetVmid);
        Path newPath = inside(targetVmid + "/" + target, imageDir.resolve(target));
        if (Files.exists(newPath, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("target volume '%s' already exists", target);
        }
        context.files().createDirectories(imageDir);
        context.files().move(oldPath, newPath);
        context.files().deleteIfEmpty(oldPath.getParent());
        String base = volume.isLinkedClone() ? volume.baseVmid() + "/" + volume.baseName() + "/" : "";
        return base + targetVmid + "/" + target;
    }

    // --- features and paths

    @Override
    public boolean hasFeature(Feature feature, VolumeName volume, String snapshot) {
        return DirFeatures.has(feature, volume, snapshot);
    }

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
        if (!Files.exists(absolute, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
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
