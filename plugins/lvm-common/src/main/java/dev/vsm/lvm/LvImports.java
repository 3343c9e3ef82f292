package dev.vsm.lvm;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.ImageConversion;
import dev.vsm.spi.ImageConversion.TargetState;
import dev.vsm.spi.ImageImport;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeName;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * {@code vsm import} into an LVM-backed storage (lvm, lvmthin): the LV is sized for the image
 * ({@link dev.vsm.spi.QemuImg#volumeSizeKib}), allocated under the storage lock with an
 * {@link ImportTag}, activated and written with {@code qemu-img convert -n}; only then is the tag
 * deleted. Zero runs are skipped ({@code --target-is-zero}) only when the storage's new volumes
 * read zeros (thin volumes; thick LVs on a storage with saferemove), else every zero is written
 * ({@code -S 0}, pve bug #2050).
 *
 * <p>Crash safety: the importing process holds the tag's claim throughout. A convert that fails
 * or is stopped frees the LV again; a vsm killed with SIGKILL leaves an LV that still carries the
 * tag, which no listing shows and which {@link #abandoned} finds for {@code vsm cleanup} and for
 * the next import, once no live process holds its claim.
 */
public final class LvImports {
    /** How the plugin allocates an LV for a request, with one extra tag (called under the storage lock). */
    @FunctionalInterface
    public interface TaggedAlloc {
        String alloc(AllocRequest request, String tag);
    }

    /**
     * How the plugin removes one LV it listed, as it frees volumes, by that LV's UUID
     * ({@link Lvm#lvremove(LogicalVolume, boolean)}): never another LV made under its name since
     * (called under the storage lock; returns what saferemove still has to do, outside it).
     */
    @FunctionalInterface
    public interface IdentifiedFree {
        Optional<Runnable> free(LogicalVolume lv);
    }

    private final Storage storage;
    private final StorageContext context;
    private final Lvm lvm;
    private final String vg;
    private final TaggedAlloc alloc;
    private final IdentifiedFree free;

    public LvImports(
            Storage storage, StorageContext context, Lvm lvm, String vg, TaggedAlloc alloc, IdentifiedFree free) {
        this.storage = requireNonNull(storage, "storage");
        this.context = requireNonNull(context, "context");
        this.lvm = requireNonNull(lvm, "lvm");
        this.vg = requireNonNull(vg, "vg");
        this.alloc = requireNonNull(alloc, "alloc");
        this.free = requireNonNull(free, "free");
    }

    private String id() {
        return storage.config().id();
    }

    /** Imports the image; returns the new volume's name. Removes what killed imports left first. */
    public String importImage(ImageImport request) {
        long kib = context.qemuImg().volumeSizeKib(request.source(), request.format(), storage.imageOptions());
        AllocRequest allocation = AllocRequest.of(request.vmid(), request.name(), request.format(), kib);
        return allocWritten(allocation, device -> {
            TargetState state = storage.newVolumesReadZeros() ? TargetState.ZEROED : TargetState.UNKNOWN;
            context.qemuImg()
                    .convert(ImageConversion.builder(
                                    request.source().path(), request.source().format(), device, request.format())
                            .sizeBytes(request.source().virtualSize())
                            .targetState(state)
                            .options(storage.imageOptions())
                            .build());
        });
    }

    /**
     * Allocates a tagged LV, activates it, lets {@code writer} fill its device and deletes the tag
     * ({@link dev.vsm.spi.Storage#allocWritten}); a failure frees the LV. Removes what killed imports left first.
     */
    public String allocWritten(AllocRequest request, Consumer<Path> writer) {
        removeAbandoned();
        ImportTag tag = ImportTag.fresh(context.nodeName());
        AtomicReference<String> name = new AtomicReference<>();
        boolean claimed =
                context.locks().tryExclusive(tag.claimName(), () -> name.set(writeClaimed(request, tag, writer)));
        if (!claimed) {
            throw StorageException.failed(
                    "storage '%s': the import claim '%s' is taken by another process - try again",
                    id(), tag.claimName());
        }
        return name.get();
    }

    private String writeClaimed(AllocRequest request, ImportTag tag, Consumer<Path> writer) {
        String name = context.locks().withStorageLock(id(), () -> alloc.alloc(request, tag.tag()));
        VolumeName volume = storage.parseVolname(name);
        try {
            storage.activateVolume(volume);
            writer.accept(storage.path(volume));
            context.locks().withStorageLock(id(), () -> {
                lvm.deltag(vg, name, tag.tag());
                return null;
            });
        } catch (RuntimeException e) {
            throw freed(name, tag, e);
        }
        return name;
    }

    /**
     * Frees the LV of a failed import, the one that carries this import's tag (another process may
     * have freed it and made a new volume under its name while the import wrote without the
     * storage lock); says so, or which LV stays when that fails too.
     */
    private StorageException freed(String name, ImportTag tag, RuntimeException cause) {
        StorageException.Kind kind = cause instanceof StorageException se ? se.kind() : StorageException.Kind.FAILED;
        try {
            boolean removed = removeTagged(name, tag, null, false);
            return new StorageException(
                    kind,
                    cause.getMessage()
                            + (removed
                                    ? " (removed '" + id() + ":" + name + "' again)"
                                    : " ('" + id() + ":" + name + "' no longer holds the LV this import made: left it"
                                            + " alone)"),
                    cause);
        } catch (
                StorageException e) { // an InterruptedCommandException too: vsm is being stopped, no lvremove may start
            return new StorageException(
                    kind,
                    cause.getMessage() + "; the partly written volume '" + id() + ":" + name
                            + "' could not be removed (" + e.getMessage() + "): it is not listed, 'vsm cleanup " + id()
                            + "' removes it",
                    cause);
        }
    }

    /**
     * The LVs of the storage's VG that imports on this node tagged and that no live process
     * claims (a claim taken at this moment means the import is still running).
     */
    public List<LogicalVolume> abandoned(LvsReport lvs) {
        String node = ImportTag.safeNode(context.nodeName());
        List<LogicalVolume> found = new ArrayList<>();
        for (LogicalVolume lv : lvs.inGroup(vg)) {
            Optional<ImportTag> tag = ImportTag.of(lv);
            if (tag.isPresent()
                    && tag.get().node().equals(node)
                    && isVolume(lv.name())
                    && context.locks().tryExclusive(tag.get().claimName(), () -> {})) {
                found.add(lv);
            }
        }
        return found;
    }

    /** A {@code del-} LV that saferemove is zeroing keeps the import's tag; saferemove finishes it, not this. */
    private boolean isVolume(String lvName) {
        try {
            storage.parseVolname(lvName);
            return true;
        } catch (StorageException e) {
            return false;
        }
    }

    /**
     * The task that removes abandoned import LVs: each under its claim (so a process that has
     * just started cannot be robbed) and the storage lock, only if it still carries its tag;
     * freed as the storage frees volumes (saferemove zeroes it). Fails, after trying all, when
     * one could not be removed.
     */
    public Runnable remove(List<LogicalVolume> abandoned) {
        List<LogicalVolume> work = List.copyOf(abandoned);
        return () -> {
            List<String> failures = new ArrayList<>();
            for (LogicalVolume lv : work) {
                ImportTag tag = ImportTag.of(lv).orElseThrow();
                try {
                    context.locks().tryExclusive(tag.claimName(), () -> removeTagged(lv.name(), tag, lv.uuid(), true));
                } catch (StorageException e) {
                    failures.add(e.getMessage());
                }
            }
            if (!failures.isEmpty()) {
                throw StorageException.failed(
                        "%s%s",
                        failures.get(0), failures.size() > 1 ? " (and " + (failures.size() - 1) + " more)" : "");
            }
        };
    }

    /**
     * Removes, under the storage lock, the LV named {@code lvName} that carries the import's
     * {@code tag} (and has {@code uuid}, when given): the one listed now, by its UUID, so that
     * neither a volume made under the name since the import began nor one made between this
     * listing and the removal is touched. Whether it found one to remove.
     *
     * @param leftover whether a killed import left it (said on the console), not the caller's own
     */
    private boolean removeTagged(String lvName, ImportTag tag, String uuid, boolean leftover) {
        Optional<Optional<Runnable>> after = context.locks().withStorageLock(id(), () -> {
            Optional<LogicalVolume> partial = lvm.lvs(vg)
                    .find(vg, lvName)
                    .filter(lv -> lv.hasTag(tag.tag()))
                    .filter(lv -> uuid == null || lv.uuid().equals(uuid));
            if (partial.isEmpty()) {
                return Optional.<Optional<Runnable>>empty();
            }
            if (leftover) {
                context.console().info("removing " + vg + "/" + lvName + ", left by an import that did not finish");
            }
            return Optional.of(free.free(partial.get()));
        });
        after.ifPresent(wipe -> wipe.ifPresent(Runnable::run));
        return after.isPresent();
    }

    /** Removes what killed imports on this node left (see {@link #abandoned}). */
    private void removeAbandoned() {
        List<LogicalVolume> abandoned = abandoned(lvm.lvs(vg));
        if (!abandoned.isEmpty()) {
            remove(abandoned).run();
        }
    }
}
