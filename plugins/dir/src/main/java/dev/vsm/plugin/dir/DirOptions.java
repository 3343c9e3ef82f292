package dev.vsm.plugin.dir;

import dev.vsm.files.DirLayout;
import dev.vsm.spi.StorageConfig;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * The dir-specific switches of a storage section.
 *
 * @param mountPoint     the mount point that must be mounted for the storage to be usable, if any
 * @param createBasePath create the storage path when it is missing
 * @param createSubdirs  create the content sub-directories
 */
record DirOptions(Optional<Path> mountPoint, boolean createBasePath, boolean createSubdirs) {

    static DirOptions of(StorageConfig config) {
        boolean mkdir = config.bool(DirPlugin.MKDIR, true);
        return new DirOptions(
                mountPoint(config),
                config.bool(DirPlugin.CREATE_BASE_PATH, mkdir),
                config.bool(DirPlugin.CREATE_SUBDIRS, true) && mkdir);
    }

    /** pve's {@code parse_is_mountpoint}: yes/on/true/1 mean the path, no/off/false/0 mean none, anything else is a path. */
    private static Optional<Path> mountPoint(StorageConfig config) {
        Optional<String> value = config.string(DirPlugin.IS_MOUNTPOINT);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        switch (value.get().toLowerCase(Locale.ROOT)) {
            case "1", "on", "yes", "true":
                return config.string(DirLayout.PATH).map(Path::of);
            case "0", "off", "no", "false":
                return Optional.empty();
            default:
                return Optional.of(Path.of(value.get()));
        }
    }
}
