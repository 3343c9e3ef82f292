package dev.vsm.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.Feature;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.Operation;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageStatus;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** One way to declare a capability: {@link Storage#operations()}, per volume {@link Storage#hasFeature}. */
class CapabilitiesTest {
    private static final VolumeName DISK = VolumeName.builder(
                    "vm-100-disk-0", ContentType.IMAGES, "vm-100-disk-0", "raw")
            .vmid(100)
            .build();
    private static final VolumeName BASE = VolumeName.builder(
                    "base-100-disk-0", ContentType.IMAGES, "base-100-disk-0", "raw")
            .vmid(100)
            .isBase(true)
            .build();

    @Test
    void aStorageThatDoesNotListAnOperationIsRefusedNamingItsPluginAndWhatItCannotDo() {
        Storage storage = new Minimal(Set.of());
        for (Operation op : Operation.values()) {
            assertThatThrownBy(() -> Capabilities.require(storage, op))
                    .isInstanceOf(StorageException.class)
                    .hasMessageStartingWith("storage 'm' (type minimal) cannot ");
        }
        assertThatThrownBy(() -> Capabilities.require(storage, Operation.RESIZE))
                .hasMessage("storage 'm' (type minimal) cannot resize volumes");
        assertThatThrownBy(() -> storage.volumeResize(DISK, 1))
                .as("the default method refuses in the same words")
                .hasMessage("storage 'm' (type minimal) cannot resize volumes");
        Capabilities.require(new Minimal(Set.of(Operation.RESIZE)), Operation.RESIZE);
    }

    @Test
    void aFeatureIsReportedOnlyWhenTheStorageListsItsOperation() {
        assertThat(Capabilities.features(new Minimal(Set.of()), DISK)).isEmpty();
        assertThat(Capabilities.features(new Minimal(Set.of(Operation.CREATE_BASE, Operation.CLONE)), DISK))
                .containsExactly(Feature.TEMPLATE);
        assertThat(Capabilities.features(new Minimal(Set.of(Operation.CREATE_BASE, Operation.CLONE)), BASE))
                .containsExactly(Feature.CLONE);
        Storage claimsSnapshots = new Minimal(Set.of()) {
            @Override
            public boolean hasFeature(Feature feature, VolumeName volume, String snapshot) {
                return feature == Feature.SNAPSHOT || feature == Feature.COPY;
            }
        };
        assertThat(Capabilities.features(claimsSnapshots, DISK))
                .as("snapshot needs Operation.SNAPSHOT, copy needs none")
                .containsExactly(Feature.COPY);
    }

    private static class Minimal implements Storage {
        private final Set<Operation> operations;

        Minimal(Set<Operation> operations) {
            this.operations = operations;
        }

        @Override
        public Set<Operation> operations() {
            return operations;
        }

        @Override
        public StorageConfig config() {
            return new StorageConfig("m", "minimal", Map.of());
        }

        @Override
        public VolumeName parseVolname(String volname) {
            return DISK;
        }

        @Override
        public Path path(VolumeName volume) {
            return Path.of("/nonexistent", volume.name());
        }

        @Override
        public String allocImage(AllocRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<Runnable> freeImage(VolumeName volume) {
            throw new UnsupportedOperationException();
        }

        @Override
        public List<VolumeInfo> listImages(Integer vmid) {
            return List.of();
        }

        @Override
        public ImageInfo volumeSizeInfo(VolumeName volume) {
            return ImageInfo.builder("raw").build();
        }

        @Override
        public StorageStatus status() {
            return StorageStatus.INACTIVE;
        }
    }
}
