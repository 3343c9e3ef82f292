package testplugin.ctx;

import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageStatus;
import dev.vsm.spi.Storage;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The storage of the ctx test plugin: status, activate and the cleanup freeImage returns look a class up. */
final class ContextStorage implements Storage {
    private final StorageConfig config;

    ContextStorage(StorageConfig config) {
        this.config = config;
    }

    @Override
    public StorageConfig config() {
        return config;
    }

    @Override
    public VolumeName parseVolname(String volname) {
        throw StorageException.badInput("no volumes");
    }

    @Override
    public Path path(VolumeName volume) {
        throw StorageException.badInput("no volumes");
    }

    @Override
    public String allocImage(AllocRequest request) {
        throw StorageException.failed("no volumes");
    }

    @Override
    public Optional<Runnable> freeImage(VolumeName volume) {
        return Optional.of(Hidden::lookUp);
    }

    @Override
    public List<VolumeInfo> listImages(Integer vmid) {
        return List.of();
    }

    @Override
    public ImageInfo volumeSizeInfo(VolumeName volume) {
        throw StorageException.badInput("no volumes");
    }

    @Override
    public StorageStatus status() {
        Hidden.lookUp();
        return StorageStatus.of(1, 0, 1, true);
    }

    @Override
    public void activate() {
        Hidden.lookUp();
    }
}
