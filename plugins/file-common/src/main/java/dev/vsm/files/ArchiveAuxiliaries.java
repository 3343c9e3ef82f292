package dev.vsm.files;

import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.Optional;

/**
 * The files that stand beside a backup archive and go with it (pve's
 * {@code archive_auxiliaries_remove}): for a standard vzdump name, its log
 * {@code <name without extension>.log} and its notes {@code <name>.notes}.
 */
final class ArchiveAuxiliaries {
    private ArchiveAuxiliaries() {}

    /**
     * Removes the log and notes files of the removed {@code archive}, where they exist, through
     * {@code context}'s files ({@link WithinStorage}: by descriptor, so a backup directory a writer
     * swapped for a link out of the storage is refused, never followed); a failure is only a warning.
     */
    static void remove(Path archive, StorageContext context) {
        String file = archive.getFileName().toString();
        Optional<String> extension = ContentFileNames.backupFormat(file);
        boolean standard = BackupArchiveName.parse(file, ZoneId.systemDefault())
                .filter(n -> n.vmid() != null && n.ctime() != null)
                .isPresent();
        if (extension.isEmpty() || !standard) {
            return;
        }
        String log = file.substring(0, file.length() - extension.get().length() - 1) + ".log";
        for (String name : new String[] {log, file + BackupAttributes.NOTES_EXT}) {
            Path auxiliary = archive.resolveSibling(name);
            if (Files.exists(auxiliary, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    context.files().delete(auxiliary);
                } catch (StorageException e) {
                    context.console()
                            .warn("Removing " + (name.equals(log) ? "log" : "notes") + " file failed: "
                                    + e.getMessage());
                }
            }
        }
    }
}
