package dev.vsm.backup;

import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.ZoneId;

/** The files that stand beside a backup archive and go with it: its log and its notes. */
public final class ArchiveAuxiliaries {
    private ArchiveAuxiliaries() {}

    /**
     * Removes the log and notes files of a removed archive with a standard name, where they exist
     * (pve's {@code archive_auxiliaries_remove}); a failure is only a warning.
     */
    public static void remove(Path archive, StorageContext context, ZoneId zone) {
        ArchiveInfo info;
        try {
            info = ArchiveInfo.of(archive.toString(), zone);
        } catch (StorageException e) {
            return;
        }
        for (String name : new String[] {info.logFilename(), info.notesFilename()}) {
            if (name == null) {
                continue;
            }
            Path file = archive.resolveSibling(name);
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    context.files().delete(file);
                } catch (StorageException e) {
                    context.console()
                            .warn("Removing " + (name.equals(info.logFilename()) ? "log" : "notes") + " file failed: "
                                    + e.getMessage());
                }
            }
        }
    }
}
