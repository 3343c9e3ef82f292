package dev.vsm.example.quotadir;

import static java.util.Objects.requireNonNull;

import dev.vsm.files.DirLayout;
import dev.vsm.files.DirVolumeNames;
import dev.vsm.files.FileVolumes;
import dev.vsm.files.ImageFileName;
import dev.vsm.files.WithinStorage;
import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.Operation;
import dev.vsm.spi.PendingCleanup;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageStatus;
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
 * One quota-dir storage. Its disks are file volumes of the library {@code vsm-files}
 * ({@link FileVolumes}: made, removed, resized and listed as dir's are, with dir's crash story:
 * a new disk is written under a temporary name and renamed into place when complete, and
 * {@code vsm cleanup} removes what a killed vsm left); what this class adds is the quota. The
 * engine holds the storage lock around alloc, resize and free, so checking the quota and
 * creating the image cannot be raced by another vsm.
 */
final class QuotaDirStorage implements Storage {
    private final StorageConfig config;
    private final StorageContext context;
    private final DirLayout layout;
    private final Quota quota;
    private final FileVolumes volumes;

    QuotaDirStorage(StorageConfig config, StorageContext context) {
        this.config = requireNonNull(config, "config");
        this.layout = DirLayout.of(config);
        // its files within the storage's directory, by descriptor: as FileVolumes' are
        this.context = WithinStorage.of(requireNonNull(context, "context"), layout.basePath());
        this.quota = Quota.of(config);
        this.volumes = new FileVolumes(config.id(), layout, context, this::imageOptions);
    }

    @Override
    public StorageConfig config() {
        return config;
    }

    @Override
    public VolumeName parseVolname(String volname) {
        VolumeName name = DirVolumeNames.parse(volname);
        if (!holds(name)) {
            throw StorageException.badInput(
                    "storage '%s' (type %s) holds raw and qcow2 VM disks only, not '%s'",
                    config.id(), QuotaDirPlugin.TYPE, VolumeId.printable(volname));
        }
        return name;
    }

    /** A VM disk in one of quota-dir's formats that is no linked clone. */
    private static boolean holds(VolumeName name) {
        return name.type() == ContentType.IMAGES
                && !name.isLinkedClone()
                && name.volumeFormat().filter(QuotaDirPlugin.FORMATS::contains).isPresent();
    }

    @Override
    public Path path(VolumeName volume) {
        return volumes.path(volume);
    }

    @Override
    public void activate() {
        context.files().createDirectories(layout.subdir(ContentType.IMAGES));
    }

    @Override
    public String allocImage(AllocRequest request) {
        int vmid = request.vmid();
        checkQuota(vmid, listImages(vmid), request.sizeKib() * 1024);
        String name = request.name();
        if (name != null
                && !name.isEmpty()
                && (ImageFileName.parse(name).format() != request.format() || !name.startsWith("vm-" + vmid + "-"))) {
            throw StorageException.badInput(
                    "illegal name '%s' - must be vm-%d-<name>.%s", name, vmid, request.format());
        }
        return volumes.alloc(request);
    }

    /**
     * Refuses, naming the numbers and the fix, when the VM's disks would exceed the quota.
     *
     * @param others the VM's disks that stay as they are
     * @param asked  the size of the new disk, or the new size of the disk being resized
     */
    private void checkQuota(int vmid, List<VolumeInfo> others, long asked) {
        long used = others.stream().mapToLong(VolumeInfo::size).sum();
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
        return volumes.free(volume);
    }

    /** The temporary files of allocations a killed vsm of this node left. */
    @Override
    public Optional<PendingCleanup> pendingCleanup() {
        return volumes.pendingCleanup();
    }

    /** The VM disks quota-dir holds (raw and qcow2, no linked clones); other image files are not its volumes. */
    @Override
    public List<VolumeInfo> listImages(Integer vmid) {
        return volumes.list(vmid).stream()
                .filter(image ->
                        holds(DirVolumeNames.parse(VolumeId.parse(image.volid()).volname())))
                .toList();
    }

    @Override
    public ImageInfo volumeSizeInfo(VolumeName volume) {
        return volumes.sizeInfo(volume);
    }

    @Override
    public Set<Operation> operations() {
        return Set.of(Operation.RESIZE);
    }

    /** Grows a disk, within the quota. */
    @Override
    public void volumeResize(VolumeName volume, long sizeBytes) {
        List<VolumeInfo> others = listImages(volume.vmid()).stream()
                .filter(d -> !VolumeId.parse(d.volid()).volname().equals(volume.volname()))
                .toList();
        checkQuota(volume.vmid(), others, sizeBytes);
        volumes.resize(volume, sizeBytes);
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
