package dev.vsm.plugin.dir;

import static java.util.Objects.requireNonNull;

import dev.vsm.files.DirLayout;
import dev.vsm.files.FileStorage;
import dev.vsm.files.Probes;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StorageStatus;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One configured dir storage (pve's {@code DirPlugin}): what every file storage does it inherits
 * from {@link FileStorage} (pve's base {@code Plugin}, in the library {@code vsm-files}); its own
 * are activation (a mount point that must be mounted, the directories it makes, where the path
 * must not lead) and the file system's capacity as its status. Every change goes through the
 * context's {@code files()}, so that {@code --dry-run} prints it; reads use {@code java.nio} directly.
 */
final class DirStorage extends FileStorage {
    private final DirOptions options;
    private final MountTable mounts;

    DirStorage(StorageConfig config, StorageContext context) {
        this(config, context, new MountTable(MountTable.PROC_MOUNTS), ZoneId::systemDefault);
    }

    DirStorage(StorageConfig config, StorageContext context, MountTable mounts, Supplier<ZoneId> zone) {
        super(config, context, DirLayout.of(config), zone);
        this.options = DirOptions.of(config);
        this.mounts = requireNonNull(mounts, "mounts");
    }

    // --- activation and status (pve DirPlugin/Plugin activate_storage, status)

    @Override
    public void activate() {
        activate(false);
    }

    @Override
    public StorageStatus activateAndStatus() {
        return activate(true);
    }

    /**
     * Activation's file-system work, in one probe, so that a hung mount makes activation fail
     * after {@link Probes#LIMIT}, not hang: the directories made, where the path leads, what it
     * must not lead to, one directory per content type; and with {@code measure} the capacity as
     * well ({@link #activateAndStatus}: {@code vsm status} of 50 storages hands 50 probes to a
     * thread, not 150).
     *
     * @return the storage's status with {@code measure}, else {@link StorageStatus#INACTIVE}
     */
    private StorageStatus activate(boolean measure) {
        Path base = layout().basePath();
        Optional<Path> mountPoint = options.mountPoint();
        if (mountPoint.isPresent() && !mounts.isMounted(mountPoint.get())) {
            throw StorageException.failed(
                    "unable to activate storage '%s' - directory is expected to be a mount point but is not mounted: '%s'",
                    config().id(), mountPoint.get());
        }
        Optional<StorageStatus> activated = Probes.within(Probes.LIMIT, () -> {
            if (options.createBasePath()) {
                context().files().createDirectories(base);
            }
            Path real = realDirectory(base);
            if (real == null && !(context().dryRun() && options.createBasePath())) {
                throw unreachable(base);
            }
            checkNotRoot(base, real);
            Set<ContentType> content = config().content(DirPlugin.schemaDefaultContent());
            if (options.createSubdirs()) {
                createContentDirectories(content);
            }
            checkOneDirectoryPerContent(content);
            return measure ? capacity(base) : StorageStatus.INACTIVE;
        });
        return activated.orElseThrow(() -> unreachable(base));
    }

    private StorageException unreachable(Path base) {
        return StorageException.failed(
                "unable to activate storage '%s' - directory '%s' does not exist or is unreachable",
                config().id(), base);
    }

    /** Where {@code path} leads; {@code path} itself when that cannot be told. */
    private static Path realOr(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            return path;
        }
    }

    /** Where {@code base} leads, if that is a directory; null if it is none or cannot be reached. */
    private static Path realDirectory(Path base) {
        try {
            Path resolved = base.toRealPath();
            return Files.isDirectory(resolved) ? resolved : null;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * A path that resolves to {@code /} (a symbolic link to it, or to a link to it), or into
     * {@code /proc}, {@code /sys}, {@code /dev} or {@code /run}, is refused: vsm would otherwise
     * make {@code /images}, {@code /template} ... and keep guests' disks among the system's files.
     * The configuration's own {@code path: /} (or {@code /dev/...}) is refused when it is read.
     *
     * @param real where {@code base} resolves to, if it is a directory (else null)
     */
    private void checkNotRoot(Path base, Path real) {
        if (real == null) {
            return;
        }
        if (real.getNameCount() == 0) {
            throw StorageException.badInput(
                    "storage '%s': path '%s' resolves to the root directory '/' - "
                            + "refusing to keep a storage there (point 'path' at a directory of its own)",
                    config().id(), base);
        }
        for (String system : DirPlugin.SYSTEM_DIRS) {
            if (real.startsWith(system)) {
                throw StorageException.badInput(
                        "storage '%s': path '%s' resolves to '%s', in %s - refusing to keep a storage "
                                + "there (point 'path' at a directory of its own)",
                        config().id(), base, real, system);
            }
        }
    }

    private void createContentDirectories(Set<ContentType> content) {
        for (ContentType type : sortedById(content, true)) {
            Path subdir = layout().subdir(type);
            try {
                context().files().createDirectories(subdir);
            } catch (StorageException e) {
                if (e.kind() == StorageException.Kind.BAD_INPUT) {
                    throw e; // a link out of the storage where the directory should be: one line naming it
                }
                String reason = e.getMessage();
                String hint = reason.matches("(?is).*(permission\\s+denied|read-?\\s?only\\s+file\\s?system).*")
                        ? " - ensure that you have read and write access to your storage!"
                        : "";
                throw StorageException.failed(
                        e,
                        "failed to create content directory '%s' for content '%s' - %s%s",
                        subdir,
                        type.id(),
                        reason,
                        hint);
            }
        }
    }

    /** The configured content types in pve's (sorted) order; with {@code forDirectories}, backup too when rootdir is on. */
    private static List<ContentType> sortedById(Set<ContentType> content, boolean forDirectories) {
        List<ContentType> types = new ArrayList<>();
        for (ContentType t : ContentType.values()) {
            boolean wanted = content.contains(t)
                    || (forDirectories && t == ContentType.BACKUP && content.contains(ContentType.ROOTDIR));
            if (wanted && t != ContentType.NONE) {
                types.add(t);
            }
        }
        types.sort((a, b) -> a.id().compareTo(b.id()));
        return types;
    }

    /**
     * pve's check that no two content types share a directory (through {@code content-dirs} or
     * symbolic links), by device and inode: one stat per directory (inside activation's probe).
     * The message names the directory's real path, as pve does.
     */
    private void checkOneDirectoryPerContent(Set<ContentType> content) {
        Map<Object, ContentType> seen = new HashMap<>();
        for (ContentType type : sortedById(content, false)) {
            Path subdir = layout().subdir(type);
            Object key;
            try {
                key = Files.readAttributes(subdir, BasicFileAttributes.class).fileKey();
            } catch (IOException e) {
                continue; // not there: pve's abs_path gives undef, and the type is skipped
            }
            if (key != null && seen.putIfAbsent(key, type) != null) {
                throw StorageException.failed(
                        "storage '%s' uses directory %s for multiple content types", config().id(), realOr(subdir));
            }
        }
    }

    @Override
    public StorageStatus status() {
        Optional<Path> mountPoint = options.mountPoint();
        if (mountPoint.isPresent() && !mounts.isMounted(mountPoint.get())) {
            return StorageStatus.INACTIVE;
        }
        Path base = layout().basePath();
        return Probes.within(Probes.LIMIT, () -> capacity(base)).orElse(StorageStatus.INACTIVE);
    }

    /** The file system's capacity at {@code base}; inactive when it is not a directory. */
    private static StorageStatus capacity(Path base) {
        if (!Files.isDirectory(base)) {
            return StorageStatus.INACTIVE;
        }
        // java.io.File's space calls are one statvfs each; a FileStore reads the mount table first
        File dir = base.toFile();
        long total = dir.getTotalSpace();
        if (total <= 0) {
            return StorageStatus.INACTIVE;
        }
        return StorageStatus.of(total, total - dir.getFreeSpace(), dir.getUsableSpace(), true);
    }
}
