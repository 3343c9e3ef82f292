package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.Command;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.Feature;
import dev.vsm.spi.HeldFile;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.ImageImport;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.ImageOptions;
import dev.vsm.spi.NoSuchVolumeException;
import dev.vsm.spi.PendingCleanup;
import dev.vsm.spi.Preallocation;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The images of a file storage, kept over a {@link DirLayout} as {@code images/<vmid>/<name>}
 * (pve's {@code Plugin} {@code alloc_image}, {@code free_image}, {@code rename_volume},
 * {@code create_base}, {@code clone_image}, {@code volume_resize}, {@code file_size_info}).
 * Every change goes through the context's {@code files()}, {@code qemuImg()} and
 * {@code commands()}, so that {@code --dry-run} prints it; reads use {@code java.nio} directly.
 *
 * <p>One crash story for every file storage: a new image is written under a temporary name and
 * renamed into place when complete and synced ({@link PartialImages}); {@link #pendingCleanup}
 * removes what a killed vsm of this node left.
 */
public final class FileVolumes {
    private static final String CHATTR = "/usr/bin/chattr";

    private final String storageId;
    private final DirLayout layout;
    private final StorageContext context;
    private final Supplier<ImageOptions> options;

    /**
     * @param options how the storage wants its images made (its {@code Storage.imageOptions()}),
     *                asked for when an image is made
     */
    public FileVolumes(String storageId, DirLayout layout, StorageContext context, Supplier<ImageOptions> options) {
        this.storageId = requireNonNull(storageId, "storageId");
        this.layout = requireNonNull(layout, "layout");
        this.context = WithinStorage.of(requireNonNull(context, "context"), layout.basePath());
        this.options = requireNonNull(options, "options");
    }

    /** The volume's path, refused (bad input) when reaching it would follow a symbolic link (see {@link DirLayout#linkOut}). */
    public Path path(VolumeName volume) {
        return inside(volume.volname(), layout.path(volume));
    }

    /** {@code file}, the path of volume {@code volname}, unless it leads out of the storage through a link. */
    private Path inside(String volname, Path file) {
        return layout.inside(storageId, volname, file);
    }

    // --- allocation and removal (pve Plugin alloc_image, free_image)

    public String alloc(AllocRequest request) {
        int vmid = request.vmid();
        VolumeFormat format = request.format();
        Path imageDir = layout.imageDir(vmid);
        String name = request.name() != null && !request.name().isEmpty() ? request.name() : nextFreeName(vmid, format);
        checkExtension(name, format);
        Path path = inside(vmid + "/" + name, imageDir.resolve(name));
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("disk image '%s' already exists", path);
        }
        if (format == VolumeFormat.SUBVOL && request.sizeKib() != 0) {
            throw StorageException.badInput("storage does not support subvol quotas");
        }

        checkFreeSpace(
                context.qemuImg().preallocation(format.id(), options.get(), false),
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
                    path, imageDir, temp -> context.qemuImg().create(temp, format, request.sizeKib(), options.get()));
        }
        return vmid + "/" + name;
    }

    /** The next free {@code vm-<vmid>-disk-<n>} of the owner's image files (pve's {@code get_next_vm_diskname}). */
    private String nextFreeName(int vmid, VolumeFormat format) {
        return DiskNames.nextFree(lister().volnames(vmid), storageId, vmid, format, true, true);
    }

    /** pve's alloc check: a name's extension must be the format's. */
    static void checkExtension(String name, VolumeFormat format) {
        VolumeFormat extension = ImageFileName.parse(name).format();
        if (extension != format) {
            throw StorageException.badInput(
                    "illegal name '%s' - wrong extension for format ('%s != '%s')", name, extension, format);
        }
    }

    /**
     * Lets {@code create} write the image under a temporary name and renames it to {@code path}
     * once complete (see {@link PartialImages}); on failure the temporary file and an emptied
     * owner directory go. {@code create} is given the file created, held open
     * ({@link StorageTree#createFilled}), not its name. A dry run prints the command on the final path.
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
            // mode 0640, which qemu-img keeps; qemu-img is given the file created, by descriptor,
            // and that file, by descriptor, gets the name: never one a writer put under the temporary name
            try (StorageTree.Made made = new StorageTree(layout.basePath()).make(temp, create)) {
                made.publish(files, path);
            }
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
                    storageId, requested, mode, free.get(), layout.basePath());
        }
    }

    /**
     * Temporary files an interrupted {@code alloc}, {@code clone}, {@code import} or content
     * stream of this node left (see {@link PartialImages}), removed after the storage lock is released.
     */
    public Optional<PendingCleanup> pendingCleanup() {
        return partials().pendingCleanup(layout);
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

    /**
     * Removes a volume's file (a subvol's tree); a protected backup is refused (see {@link BackupAttributes}).
     * Only the file found here goes (by device, inode and birth time, {@link HostFiles#deleteIdentified}): if
     * this process stalls past its cluster lock and another node frees the volume and makes a new
     * one under the same name meanwhile, the new one stays and this free fails.
     */
    public Optional<Runnable> free(VolumeName volume) {
        Path path = path(volume);
        Optional<BasicFileAttributes> found = FileStat.lstat(path);
        if (found.isEmpty()) {
            throw new NoSuchVolumeException(
                    String.format("volume '%s:%s' does not exist (no file '%s')", storageId, volume.volname(), path));
        }
        if (new BackupAttributes(layout, context.files()).isProtected(volume)) {
            throw StorageException.badInput("cannot remove protected volume '%s' on '%s'", volume.volname(), storageId);
        }
        if (volume.isBase()) {
            mutableAgain(path, found.get());
        }
        context.files().deleteIdentified(path, found.get());
        if (volume.type() == ContentType.IMAGES) {
            context.files().deleteIfEmpty(path.getParent());
        }
        return Optional.empty();
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

    /** The images of one owner, or of all when {@code vmid} is null ({@link ImageLister}). */
    public List<VolumeInfo> list(Integer vmid) {
        return lister().list(vmid);
    }

    private ImageLister lister() {
        return new ImageLister(storageId, layout, context.qemuImg(), context.console());
    }

    /** pve's {@code file_size_info}: qemu-img's view of an image, a subvol's ctime. */
    public ImageInfo sizeInfo(VolumeName volume) {
        Path path = path(volume);
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

    public void resize(VolumeName volume, long sizeBytes) {
        if (!volume.volname().endsWith(".raw") && !volume.volname().endsWith(".qcow2")) {
            throw StorageException.badInput("can't resize this image format");
        }
        context.qemuImg().resize(path(volume), volume.format(), sizeBytes, options.get());
    }

    // --- templates and linked clones (pve Plugin create_base, clone_image)

    public String createBase(VolumeName volume) {
        if (volume.type() != ContentType.IMAGES) {
            throw StorageException.badInput(
                    "create_base on wrong vtype '%s'", volume.type().id());
        }
        if (volume.isBase()) {
            throw StorageException.badInput("create_base not possible with base image");
        }
        Path path = path(volume);
        ImageInfo info;
        try {
            info = sizeInfo(volume);
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
        if (context.dryRun()) {
            context.files().makeReadOnly(newPath);
            chattr("+i", newPath);
            return newVolname;
        }
        // by descriptor: a writer of the directory may swap the new name for a link at any moment
        try (StorageTree.Dir dir = new StorageTree(layout.basePath()).open(newPath.getParent());
                HeldFile base = dir.openRegular(newName)) {
            context.files().makeReadOnly(base.path()); // the file opened (its /proc/<pid>/fd/<n>), never a link
            chattr("+i", dir, newPath);
            // chattr opens the name: an immutable file cannot be renamed or unlinked, so what the
            // name holds now is what chattr made immutable, and when it is not the base, exactly that is undone
            if (!sameFile(entry(dir, newName), base.attributes())) {
                chattr("-i", dir, newPath);
                throw StorageException.failed(
                        "unable to make '%s' a base - the name no longer holds the file this command made read-only "
                                + "(replaced meanwhile by another process?): left what is there as it was",
                        newPath);
            }
        } catch (IOException e) {
            throw StorageException.failed(e, "unable to make '%s' a base - %s", newPath, e.getMessage());
        }
        return newVolname;
    }

    /**
     * {@code chattr -i} of a base before {@link #free} removes it, only on the file found
     * ({@code seen}: device, inode and birth time, looked up in the directory held). chattr opens the
     * name, so the name is checked before and after: before, a base that is no longer the one
     * found is refused untouched; after, when the name holds another file by then (another node,
     * whose cluster lock this process outlived, freed the base and made a new one under the name
     * in between), that file is made immutable again, as a base's name holds only immutable files,
     * and the free fails.
     */
    private void mutableAgain(Path file, BasicFileAttributes seen) {
        if (context.dryRun()) {
            chattr("-i", file);
            return;
        }
        String name = file.getFileName().toString();
        try (StorageTree.Dir dir = new StorageTree(layout.basePath()).open(file.getParent())) {
            boolean found = sameFile(entry(dir, name), seen);
            if (found) {
                chattr("-i", dir, file);
                found = sameFile(entry(dir, name), seen);
                if (!found) {
                    chattr("+i", dir, file);
                }
            }
            if (!found) {
                throw StorageException.failed(
                        "'%s' is no longer the file this command found (replaced meanwhile by another node or "
                                + "process?): left it alone",
                        file);
            }
        } catch (IOException e) {
            context.console().warn(String.format("chattr -i '%s' failed - %s", file, e.getMessage()));
        }
    }

    /** {@code lstat} of the entry {@code name} of the directory held (its last name only is looked up). */
    private static Optional<BasicFileAttributes> entry(StorageTree.Dir dir, String name) throws IOException {
        return FileStat.lstat(dir.held().path().resolve(name));
    }

    /** Whether an entry is the file {@code seen} (device, inode and birth time). */
    private static boolean sameFile(Optional<BasicFileAttributes> entry, BasicFileAttributes seen) {
        return entry.isPresent()
                && entry.get().fileKey().equals(seen.fileKey())
                && entry.get().creationTime().equals(seen.creationTime());
    }

    /**
     * {@code chattr <flag> -- <name>} of a file in the storage, run in its directory opened by
     * descriptor ({@link #chattr(String, StorageTree.Dir, Path)}); a failure is only a warning, as in pve.
     */
    private void chattr(String flag, Path file) {
        if (context.dryRun()) {
            runWarned(Command.of(CHATTR, flag, file.toString()));
            return;
        }
        try (StorageTree.Dir dir = new StorageTree(layout.basePath()).open(file.getParent())) {
            chattr(flag, dir, file);
        } catch (IOException e) {
            context.console().warn(String.format("chattr %s '%s' failed - %s", flag, file, e.getMessage()));
        }
    }

    /**
     * {@code chattr <flag> -- <name>} with {@code dir}, held by its descriptor, as its working
     * directory ({@link HeldFile#path()}): chattr opens the name relative to it with
     * {@code O_NOFOLLOW} and refuses anything but a regular file or directory, so neither a link
     * swapped in for the name nor one for a directory above it leads chattr out of the storage.
     */
    private void chattr(String flag, StorageTree.Dir dir, Path file) throws IOException {
        runWarned(Command.of(CHATTR, flag, "--", file.getFileName().toString())
                .inDirectory(dir.held().path()));
    }

    public String clone(VolumeName base, int vmid) {
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
        String name = nextFreeName(vmid, VolumeFormat.QCOW2);
        String backing = "../" + base.vmid() + "/" + base.name();
        String newVolname = base.vmid() + "/" + base.name() + "/" + vmid + "/" + name;
        Path path = inside(newVolname, imageDir.resolve(name));
        long baseSize = context.dryRun() ? -1 : sizeInfo(base).virtualSize(); // a dry run does not read the base
        checkFreeSpace(context.qemuImg().preallocation(base.format(), options.get(), true), () -> baseSize);
        context.console()
                .info(String.format(
                        "clone %s: images, %s, %d to %s (base=%s)", base.volname(), name, vmid, name, backing));

        context.files().createDirectories(imageDir);
        partials().removeAbandoned(imageDir);
        createThenRename(path, imageDir, temp -> {
            if (context.dryRun()) {
                context.qemuImg().createBacked(temp, backing, base.format(), options.get());
            } else {
                // the held file: qemu-img records the relative backing name without opening it from there
                context.qemuImg().createBacked(temp, backing, base.format(), baseSize, options.get());
            }
        });
        return newVolname;
    }

    /**
     * Moves an image to another owner's directory or name (pve's {@code rename_volume}). A linked
     * clone keeps its base: its backing file {@code ../<basevmid>/<base>} resolves from any
     * owner's directory.
     */
    public String rename(VolumeName volume, int targetVmid, String targetName) {
        if (volume.type() != ContentType.IMAGES) {
            throw StorageException.badInput(
                    "rename_volume on wrong vtype '%s'", volume.type().id());
        }
        if (!FileFeatures.has(Feature.RENAME, volume, null)) {
            // a base is immutable (chattr +i) and has linked clones that name it: the feature table leaves it out
            throw StorageException.badInput(
                    "rename feature is not available for volume '%s:%s'", storageId, volume.volname());
        }
        Path oldPath = path(volume);
        if (!FileStat.isFileOrLink(oldPath) && !Files.isDirectory(oldPath, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("storage '%s': no such volume '%s'", storageId, volume.volname());
        }
        VolumeFormat format = ImageFileName.parse(volume.name()).format();
        String target = targetName;
        if (target == null) {
            target = nextFreeName(targetVmid, format);
        } else {
            checkExtension(target, format);
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

    // --- images written before they count as volumes (vsm import, import-stream, copy)

    public String importImage(ImageImport request) {
        return importer().importImage(request);
    }

    /** Images (raw, qcow2, vmdk) and subvols (directories) are made under a temporary name and named when written. */
    public Optional<String> allocWritten(AllocRequest request, Consumer<Path> writer) {
        if (request.format() == VolumeFormat.SUBVOL) {
            return Optional.of(importer().allocWrittenSubvol(request, writer));
        }
        checkFreeSpace(
                context.qemuImg().preallocation(request.format().id(), options.get(), false),
                () -> Math.multiplyExact(request.sizeKib(), 1024L));
        return Optional.of(importer().allocWritten(request, writer));
    }

    private ImageImporter importer() {
        return new ImageImporter(storageId, layout, context, options.get(), vmid -> lister().volnames(vmid));
    }
}
