package dev.vsm.plugin.lvm;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.ImageConversion;
import dev.vsm.spi.ImageConversion.TargetState;
import dev.vsm.spi.ImageImport;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeName;
import java.util.Optional;

/**
 * {@code vsm import} into an lvm storage: the LV is sized for the image (its virtual size for raw;
 * {@code qemu-img measure} for formats with metadata), allocated under the storage lock, activated
 * and written with {@code qemu-img convert -n}. Whether zero runs may be skipped depends on what a
 * fresh LV holds: on a storage with {@code saferemove} every freed LV was zeroed, so a new one reads
 * zeros ({@code --target-is-zero}); otherwise it may hold a previous volume's data and every zero
 * is written ({@code -S 0}, pve bug #2050). A failed convert frees the LV again.
 */
final class LvmImageImporter {
    private final Storage storage;
    private final StorageContext context;

    LvmImageImporter(Storage storage, StorageContext context) {
        this.storage = requireNonNull(storage, "storage");
        this.context = requireNonNull(context, "context");
    }

    String importImage(ImageImport request) {
        String id = storage.config().id();
        long kib = request.source().volumeSizeKib(request.format(), context.qemuImg(), storage.imageOptions());
        String name = context.locks().withStorageLock(id,
                () -> storage.allocImage(new AllocRequest(request.vmid(), request.name(), request.format(), kib)));
        VolumeName volume = storage.parseVolname(name);
        try {
            storage.activateVolume(volume);
            TargetState state = storage.newVolumesReadZeros() ? TargetState.ZEROED : TargetState.UNKNOWN;
            context.qemuImg().convert(new ImageConversion(request.source().path(), request.source().format(),
                    request.source().virtualSize(), storage.path(volume), request.format(), state, storage.imageOptions()));
        } catch (RuntimeException e) {
            throw freed(id, name, volume, e);
        }
        return name;
    }

    /** Frees the LV of a failed import; says so, or which LV stays when that fails too. */
    private StorageException freed(String id, String name, VolumeName volume, RuntimeException cause) {
        StorageException.Kind kind = cause instanceof StorageException se ? se.kind() : StorageException.Kind.FAILED;
        try {
            Optional<Runnable> wipe = context.locks().withStorageLock(id, () -> storage.freeImage(volume));
            wipe.ifPresent(Runnable::run);
            return new StorageException(kind, cause.getMessage() + " (removed '" + id + ":" + name + "' again)", cause);
        } catch (StorageException e) { // an InterruptedCommandException too: vsm is being stopped, no lvremove may start
            return new StorageException(kind, cause.getMessage() + "; the partly written volume '" + id + ":" + name
                    + "' could not be removed (" + e.getMessage() + "): remove it with 'vsm free " + id + ":" + name + "'", cause);
        }
    }
}
