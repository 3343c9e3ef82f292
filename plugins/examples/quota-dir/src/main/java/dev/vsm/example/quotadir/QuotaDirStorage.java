package dev.vsm.example.quotadir;

import static java.util.Objects.requireNonNull;

import dev.vsm.files.DirLayout;
import dev.vsm.files.DirVolumeNames;
import dev.vsm.files.DiskNames;
import dev.vsm.files.ImageFileName;
import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.Operation;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageStatus;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One quota-dir storage. Files are made and removed through the context ({@code files()},
 * {@code qemuImg()}), so that {@code --dry-run} prints instead; the engine holds the storage
 * lock around alloc, resize and free, so checking the quota and creating the image cannot be
 * raced by another vsm.
 */
final class QuotaDirStorage implements Storage {
    private final StorageConfig config;
    private final StorageContext context;
    private final DirLayout layout;
    private final Quota quota;
    private final VmDisks disks;

    QuotaDirStorage(StorageConfig config, StorageContext context) {
        this.config = requireNonNull(config, "config");
        this.context = requireNonNull(context, "context");
        this.layout = DirLayout.of(config);
        this.quota = Quota.of(config);
        this.disks = new VmDisks(layout, context.qemuImg());
    }

    @Override
    public StorageConfig config() {
        return config;
    }

    @Override
    public VolumeName parseVolname(String volname) {
        VolumeName name = DirVolumeNames.parse(volname);
        if (name.type() != ContentType.IMAGES
                || name.isLinkedClone()
                || name.volumeFormat().filter(QuotaDirPlugin.FORMATS::contains).isEmpty()) {
            throw StorageException.badInput(
                    "storage '%s' (type %s) holds raw and qcow2 VM disks only, not '%s'",
                    config.id(), QuotaDirPlugin.TYPE, VolumeId.printable(volname));
        }
        return name;
    }

    @Override
    public Path path(VolumeName volume) {
        return layout.path(volume);
    }

    @Override
    public void activate() {
        context.files().createDirectories(layout.subdir(ContentType.IMAGES));
    }

    @Override
    public String allocImage(AllocRequest request) {
        int vmid = request.vmid();
        VolumeFormat format = request.format();
        List<VmDisks.Disk> existing = disks.of(vmid);
        checkQuota(vmid, existing, request.sizeKib() * 1024);
        String name = request.name() != null && !request.name().isEmpty()
                ? request.name()
                : DiskNames.nextFree(
                        existing.stream().map(VmDisks.Disk::name).toList(), config.id(), vmid, format, true, true);
        ImageFileName file = ImageFileName.parse(name);
        if (file.format() != format || !name.startsWith("vm-" + vmid + "-")) {
            throw StorageException.badInput("illegal name '%s' - must be vm-%d-<name>.%s", name, vmid, format);
        }
        Path path = layout.imageDir(vmid).resolve(name);
        if (Files.exists(path)) {
            throw StorageException.badInput("disk image '%s' already exists", path);
        }
        context.files().createDirectories(layout.imageDir(vmid));
        // qemu-img keeps the mode of a file that exists: made through the context first (mode
        // 0640, nothing under --dry-run), the disk is never readable by other local users
        context.files().createFile(path);
        try {
            context.qemuImg().create(path, format, request.sizeKib(), imageOptions());
        } catch (RuntimeException e) {
            context.files().delete(path);
            throw e;
        }
        return vmid + "/" + name;
    }

    /**
     * Refuses, naming the numbers and the fix, when the VM's disks would exceed the quota.
     *
     * @param others the VM's disks that stay as they are
     * @param asked  the size of the new disk, or the new size of the disk being resized
     */
    private void checkQuota(int vmid, List<VmDisks.Disk> others, long asked) {
        long used = others.stream().mapToLong(VmDisks.Disk::virtualSize).sum();
        if (used + asked > quota.bytes()) {
            throw StorageException.badInput(
                    "storage '%s': VM %d would use %s of its %s quota (%s in %d other disk(s) + %s)"
                            + " - free a disk of VM %d, or raise the quota with 'vsm set %s --%s <size>'",
                    config.id(),
                    vmid,
                    Quota.human(used + asked),
                    Quota.human(quota.bytes()),
                    Quota.human(used),
                    others.size(),
                    Quota.human(asked),
                    vmid,
                    config.id(),
                    QuotaDirPlugin.VM_QUOTA);
        }
    }

    @Override
    public Optional<Runnable> freeImage(VolumeName volume) {
        Path path = layout.path(volume);
        if (!Files.isRegularFile(path)) {
            throw StorageException.badInput("disk image '%s' does not exist", path);
        }
        context.files().delete(path);
        context.files().deleteIfEmpty(path.getParent());
        return Optional.empty();
    }

    @Override
    public List<VolumeInfo> listImages(Integer vmid) {
        List<VmDisks.Disk> list = vmid == null ? disks.all() : disks.of(vmid);
        return list.stream()
                .map(d -> VolumeInfo.builder(
                                new VolumeId(config.id(), d.vmid() + "/" + d.name()).toString(),
                                d.format(),
                                ContentType.IMAGES)
                        .size(d.virtualSize())
                        .used(d.actualSize())
                        .vmid(d.vmid())
                        .ctime(ctime(d.path()))
                        .build())
                .toList();
    }

    private static Long ctime(Path path) {
        try {
            return Files.getLastModifiedTime(path).toInstant().getEpochSecond();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public ImageInfo volumeSizeInfo(VolumeName volume) {
        Path path = layout.path(volume);
        if (!Files.isRegularFile(path)) {
            throw StorageException.failed("failed to stat '%s'", path);
        }
        return context.qemuImg().info(path, volume.format());
    }

    @Override
    public Set<Operation> operations() {
        return Set.of(Operation.RESIZE);
    }

    /** Grows a disk, within the quota. */
    @Override
    public void volumeResize(VolumeName volume, long sizeBytes) {
        List<VmDisks.Disk> others = disks.of(volume.vmid()).stream()
                .filter(d -> !d.name().equals(volume.name()))
                .toList();
        checkQuota(volume.vmid(), others, sizeBytes);
        context.qemuImg().resize(layout.path(volume), volume.format(), sizeBytes, imageOptions());
    }

    @Override
    public StorageStatus status() {
        Path base = layout.basePath();
        if (!Files.isDirectory(base)) {
            return StorageStatus.INACTIVE;
        }
        try {
            FileStore store = Files.getFileStore(base);
            long total = store.getTotalSpace();
            return StorageStatus.of(total, total - store.getUnallocatedSpace(), store.getUsableSpace(), true);
        } catch (IOException e) {
            return StorageStatus.INACTIVE;
        }
    }
}
