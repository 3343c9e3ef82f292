package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.ImageConversion;
import dev.vsm.spi.ImageImport;
import dev.vsm.spi.ImageOptions;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * New images that are written before they count as volumes: {@code vsm import} into a file storage
 * ({@code qemu-img convert} with the storage's options: preallocation, subclusters, cluster size)
 * and {@code import-stream} ({@code qemu-img create}, then the stream: {@link #allocWritten}). The
 * image is made under a temporary name in the guest's image directory ({@link PartialImages});
 * only when it is complete does it get its volume name, chosen and taken under the storage lock.
 * A failure removes the temporary file; one left by a vsm killed with SIGKILL is never listed,
 * and the next import, alloc or clone into that directory, or {@code vsm cleanup}, removes it.
 */
final class ImageImporter {
    private static final Set<VolumeFormat> FORMATS =
            EnumSet.of(VolumeFormat.RAW, VolumeFormat.QCOW2, VolumeFormat.VMDK);

    private final String storageId;
    private final DirLayout layout;
    private final StorageContext context;
    private final ImageOptions options;
    private final NameSource names;
    private final PartialImages partials;

    /** The volume names of a guest's images, for choosing the next free one. */
    @FunctionalInterface
    interface NameSource {
        List<String> volnames(int vmid);
    }

    ImageImporter(String storageId, DirLayout layout, StorageContext context, ImageOptions options, NameSource names) {
        this.storageId = requireNonNull(storageId, "storageId");
        this.layout = requireNonNull(layout, "layout");
        this.context = requireNonNull(context, "context");
        this.options = requireNonNull(options, "options");
        this.names = requireNonNull(names, "names");
        this.partials = new PartialImages(context.nodeName(), context.files());
    }

    String importImage(ImageImport request) {
        VolumeFormat format = request.format();
        if (!FORMATS.contains(format)) {
            throw StorageException.badInput("cannot import an image as format '%s' (use raw, qcow2 or vmdk)", format);
        }
        return make(
                request.vmid(),
                request.name(),
                format,
                temp -> context.qemuImg()
                        .convert(ImageConversion.builder(
                                        request.source().path(),
                                        request.source().format(),
                                        temp,
                                        format)
                                .sizeBytes(request.source().virtualSize())
                                .options(options)
                                .build()));
    }

    /** An image of {@code request}'s size made by {@code qemu-img create}, then filled by {@code writer}, then named. */
    String allocWritten(AllocRequest request, Consumer<Path> writer) {
        VolumeFormat format = request.format();
        return make(request.vmid(), request.name(), format, temp -> {
            context.qemuImg().create(temp, format, request.sizeKib(), options);
            writer.accept(temp);
        });
    }

    /**
     * A subvol made empty under a temporary name ({@link PartialImages}), filled by {@code writer}
     * (given the directory by descriptor, {@link StorageTree}), then named as {@link #make} names
     * an image; a failure removes the temporary tree (no link in it followed). A subvol has no size:
     * any other than 0 is refused as pve refuses it. Its files are not synced one by one (pve's
     * {@code tar -x} neither): the two directories that name it are.
     */
    String allocWrittenSubvol(AllocRequest request, Consumer<Path> writer) {
        if (request.sizeKib() != 0) {
            throw StorageException.badInput("storage does not support subvol quotas");
        }
        int vmid = request.vmid();
        Path imageDir = layout.imageDir(vmid);
        Path temp = prepare(vmid, request.name(), VolumeFormat.SUBVOL);
        String name;
        try {
            context.files().createDirectories(temp);
            if (context.dryRun()) {
                writer.accept(temp);
            } else {
                try (StorageTree.Dir dir = new StorageTree(layout.basePath()).open(temp)) {
                    writer.accept(dir.held().path());
                } catch (IOException e) {
                    throw StorageException.failed(e, "unable to open subvol '%s' - %s", temp, e.getMessage());
                }
            }
            name = publish(
                    vmid,
                    request.name(),
                    VolumeFormat.SUBVOL,
                    path -> context.files().move(temp, path));
        } catch (RuntimeException e) {
            removeTempTree(temp, imageDir);
            throw e;
        }
        if (!context.dryRun()) {
            context.files().sync(imageDir);
            context.files().sync(imageDir.getParent());
        }
        return vmid + "/" + name;
    }

    private void removeTempTree(Path temp, Path imageDir) {
        try {
            context.files().deleteTree(temp);
        } catch (StorageException cleanup) {
            context.console().warn(cleanup.getMessage());
        }
        context.files().deleteIfEmpty(imageDir);
    }

    /**
     * Lets {@code fill} make the image under a temporary name, then gives it its name (the one
     * asked for, else the next free one) under the storage lock; a failure removes the temporary file.
     * Durable as {@code alloc} is: the data is synced before the rename, the owner and images
     * directories after it (a failure of those removes the image again).
     */
    private String make(int vmid, String wantedName, VolumeFormat format, Consumer<Path> fill) {
        Path imageDir = layout.imageDir(vmid);
        Path temp = prepare(vmid, wantedName, format);
        if (context.dryRun()) {
            fill.accept(temp);
            // prints what it would do
            return vmid + "/"
                    + publish(vmid, wantedName, format, path -> context.files().move(temp, path));
        }
        String name;
        // mode 0640, which qemu-img keeps; qemu-img and the writer get the file created, by descriptor,
        // and that file, by descriptor, gets the name
        try (StorageTree.Made made = new StorageTree(layout.basePath()).make(temp, fill)) {
            name = publish(vmid, wantedName, format, path -> made.publish(context.files(), path));
        } catch (RuntimeException e) {
            removeTemp(temp, imageDir);
            throw e;
        }
        try {
            context.files().sync(imageDir);
            context.files().sync(imageDir.getParent());
        } catch (RuntimeException e) {
            removeTemp(imageDir.resolve(name), imageDir);
            throw e;
        }
        return vmid + "/" + name;
    }

    /**
     * Before anything is made: the name asked for checked (pve's rules, and inside the storage),
     * the guest's directory made and the abandoned temporaries in it removed, under the storage
     * lock; returns the temporary name for the new volume.
     */
    private Path prepare(int vmid, String wantedName, VolumeFormat format) {
        Path imageDir = layout.imageDir(vmid);
        String asked = wantedName != null ? wantedName : "import." + format.id();
        layout.inside(storageId, vmid + "/" + asked, imageDir.resolve(asked));
        if (wantedName != null) {
            checkName(wantedName, format, imageDir);
        }
        context.locks().withStorageLock(storageId, () -> {
            context.files().createDirectories(imageDir);
            partials.removeAbandoned(imageDir);
            return null;
        });
        return partials.temporaryFor(imageDir.resolve(asked));
    }

    /**
     * Under the storage lock: the name asked for, else the guest's next free one, checked again
     * and given to the new volume by {@code give}; returns the name.
     */
    private String publish(int vmid, String wantedName, VolumeFormat format, Consumer<Path> give) {
        Path imageDir = layout.imageDir(vmid);
        return context.locks().withStorageLock(storageId, () -> {
            String chosen = wantedName != null
                    ? wantedName
                    : DiskNames.nextFree(names.volnames(vmid), storageId, vmid, format, true, true);
            checkName(chosen, format, imageDir);
            give.accept(imageDir.resolve(chosen));
            return chosen;
        });
    }

    /** pve's alloc checks: the extension must be the format's, and the image must not exist yet. */
    private static void checkName(String name, VolumeFormat format, Path imageDir) {
        FileVolumes.checkExtension(name, format);
        Path path = imageDir.resolve(name);
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("disk image '%s' already exists", path);
        }
    }

    private void removeTemp(Path temp, Path imageDir) {
        try {
            if (Files.exists(temp, LinkOption.NOFOLLOW_LINKS)) {
                context.files().delete(temp);
            }
        } catch (StorageException cleanup) {
            context.console().warn(cleanup.getMessage());
        }
        context.files().deleteIfEmpty(imageDir);
    }
}
