package testplugin.spiv1;

import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.DiskNames;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.ImageOptions;
import dev.vsm.spi.Operation;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageStatus;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import dev.vsm.spi.files.DirLayout;
import dev.vsm.spi.files.DirVolumeNames;
import dev.vsm.spi.files.ImageFileName;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/** Volumes as entries in a map: volume name to size in bytes. */
final class MemoryStorage implements Storage {
    private final StorageConfig config;
    private final StorageContext context;
    private final DirLayout layout;
    private final Map<String, Long> volumes = new TreeMap<>();
    private boolean active;

    MemoryStorage(StorageConfig config, StorageContext context) {
        this.config = config;
        this.context = context;
        this.layout = DirLayout.of(config);
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
        return layout.path(volume);
    }

    @Override
    public Optional<String> volnameForPath(Path path) {
        return layout.volumeForPath(path).map(v -> v.volname());
    }

    @Override
    public String allocImage(AllocRequest request) {
        if (volumes.size() >= config.integer(MemoryPlugin.LIMIT).orElse(100L)) {
            throw StorageException.failed("storage '%s' is full", config.id());
        }
        List<String> names = new ArrayList<>(volumes.keySet());
        String name = request.name() != null ? request.name()
                : DiskNames.nextFree(names, config.id(), request.vmid(), request.format(), true, false);
        ImageFileName.parse(name);
        String volname = request.vmid() + "/" + name;
        volumes.put(volname, request.sizeKib() * 1024);
        context.console().info("allocated " + new VolumeId(config.id(), volname));
        return volname;
    }

    @Override
    public Optional<Runnable> freeImage(VolumeName volume) {
        if (volumes.remove(volume.volname()) == null) {
            throw StorageException.badInput("no volume '%s'", volume.volname());
        }
        return Optional.of(() -> context.console().info("freed " + volume.volname()));
    }

    @Override
    public List<VolumeInfo> listImages(Integer vmid) {
        List<VolumeInfo> list = new ArrayList<>();
        volumes.forEach((volname, size) -> {
            VolumeName name = parseVolname(volname);
            if (vmid == null || vmid.equals(name.vmid())) {
                list.add(VolumeInfo.builder(new VolumeId(config.id(), volname).toString(), name.format(), ContentType.IMAGES)
                        .size(size).used(size).vmid(name.vmid()).parent(name.isLinkedClone() ? name.baseName() : null).build());
            }
        });
        return list;
    }

    @Override
    public List<VolumeInfo> listVolumes(Integer vmid, Set<ContentType> types) {
        return Storage.super.listVolumes(vmid, types);
    }

    @Override
    public ImageInfo volumeSizeInfo(VolumeName volume) {
        Long size = volumes.get(volume.volname());
        if (size == null) {
            throw StorageException.failed("failed to stat '%s'", volume.volname());
        }
        return ImageInfo.builder(volume.format()).virtualSize(size).actualSize(size).build();
    }

    @Override
    public Set<Operation> operations() {
        return Set.of(Operation.RESIZE, Operation.CREATE_BASE, Operation.CLONE);
    }

    @Override
    public void volumeResize(VolumeName volume, long sizeBytes) {
        volumeSizeInfo(volume);
        volumes.put(volume.volname(), sizeBytes);
    }

    @Override
    public String createBase(VolumeName volume) {
        long size = volumeSizeInfo(volume).virtualSize();
        String base = volume.vmid() + "/" + volume.name().replaceFirst("^vm-", "base-");
        volumes.remove(volume.volname());
        volumes.put(base, size);
        return base;
    }

    @Override
    public String cloneImage(VolumeName base, int vmid) {
        long size = volumeSizeInfo(base).virtualSize();
        String name = DiskNames.nextFree(new ArrayList<>(volumes.keySet()), config.id(), vmid, VolumeFormat.QCOW2, true, false);
        String volname = base.vmid() + "/" + base.name() + "/" + vmid + "/" + name;
        volumes.put(volname, size);
        return volname;
    }

    @Override
    public StorageStatus status() {
        return active ? StorageStatus.of(1L << 30, volumes.values().stream().mapToLong(Long::longValue).sum(), 1L << 29, true)
                : StorageStatus.INACTIVE;
    }

    @Override
    public void activate() {
        active = true;
    }

    @Override
    public void deactivate() {
        active = false;
    }

    @Override
    public void activateVolume(VolumeName volume) {
        volumeSizeInfo(volume);
    }

    @Override
    public void deactivateVolume(VolumeName volume) {
        volumeSizeInfo(volume);
    }

    @Override
    public ImageOptions imageOptions() {
        return ImageOptions.of(config);
    }
}
