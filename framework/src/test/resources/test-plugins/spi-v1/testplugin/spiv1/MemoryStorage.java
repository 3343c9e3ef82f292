package testplugin.spiv1;

import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.ContentType;
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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Volumes as entries in a map: volume name to size in bytes. Names as dir's, {@code <vmid>/<name>}
 * and {@code <base vmid>/<base name>/<vmid>/<name>} for a linked clone; it uses the SPI alone.
 */
final class MemoryStorage implements Storage {
    private static final Pattern DISK = Pattern.compile("(vm|base)-(\\d+)-disk-(\\d+)\\.(raw|qcow2)");
    private static final Pattern VOLNAME =
            Pattern.compile("(?:(\\d+)/((?:base)-\\d+-disk-\\d+\\.(?:raw|qcow2))/)?(\\d+)/(" + DISK.pattern() + ")");

    private final StorageConfig config;
    private final StorageContext context;
    private final Path images;
    private final Map<String, Long> volumes = new TreeMap<>();
    private boolean active;

    MemoryStorage(StorageConfig config, StorageContext context) {
        this.config = config;
        this.context = context;
        this.images = Path.of(config.string(MemoryPlugin.PATH).orElseThrow(), "images");
    }

    @Override
    public StorageConfig config() {
        return config;
    }

    @Override
    public VolumeName parseVolname(String volname) {
        Matcher m = VOLNAME.matcher(volname);
        if (!m.matches()) {
            throw StorageException.badInput("unable to parse volume name '%s'", volname);
        }
        String name = m.group(4);
        return VolumeName.builder(volname, ContentType.IMAGES, name, m.group(8))
                .vmid(Integer.valueOf(m.group(3)))
                .base(m.group(2), m.group(1) == null ? null : Integer.valueOf(m.group(1)))
                .isBase(name.startsWith("base-"))
                .build();
    }

    @Override
    public Path path(VolumeName volume) {
        return images.resolve(volume.volname());
    }

    @Override
    public Optional<String> volnameForPath(Path path) {
        return path.startsWith(images) ? Optional.of(images.relativize(path).toString()) : Optional.empty();
    }

    @Override
    public String allocImage(AllocRequest request) {
        if (volumes.size() >= config.integer(MemoryPlugin.LIMIT).orElse(100L)) {
            throw StorageException.failed("storage '%s' is full", config.id());
        }
        List<String> names = new ArrayList<>(volumes.keySet());
        String name = request.name() != null ? request.name()
                : nextFree(names, request.vmid(), request.format());
        if (!DISK.matcher(name).matches()) {
            throw StorageException.badInput("illegal name '%s'", name);
        }
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
        String name = nextFree(new ArrayList<>(volumes.keySet()), vmid, VolumeFormat.QCOW2);
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

    private String nextFree(List<String> volnames, int vmid, VolumeFormat format) {
        String suffix = "." + (format == null ? VolumeFormat.RAW : format).id();
        for (int n = 0; ; n++) {
            String name = "vm-" + vmid + "-disk-" + n + suffix;
            String base = "base-" + vmid + "-disk-" + n + suffix;
            if (volnames.stream().noneMatch(v -> v.endsWith("/" + name) || v.endsWith("/" + base))) {
                return name;
            }
        }
    }
}
