package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Notes and protection of backups (pve's {@code DirPlugin} {@code get_volume_attribute} and
 * {@code update_volume_attribute}), kept in files beside the archive: its notes in
 * {@code <archive>.notes}, and it is protected while {@code <archive>.protected} exists. Other
 * content has neither.
 */
public final class BackupAttributes {
    /** A backup's notes are in {@code <archive>.notes}. */
    public static final String NOTES_EXT = ".notes";
    /** A backup is protected while {@code <archive>.protected} exists. */
    public static final String PROTECTED_EXT = ".protected";

    private final DirLayout layout;
    private final HostFiles files;

    public BackupAttributes(DirLayout layout, HostFiles files) {
        this.layout = requireNonNull(layout, "layout");
        this.files = requireNonNull(files, "files");
    }

    /** The file beside the volume's archive that holds one attribute. */
    private Path attributeFile(VolumeName volume, String extension) {
        return Path.of(layout.path(volume) + extension);
    }

    /** A backup's notes, all lines ({@code ""} without a notes file); empty for other content. */
    public Optional<String> notes(VolumeName volume) {
        if (volume.type() != ContentType.BACKUP) {
            return Optional.empty();
        }
        Path notes = attributeFile(volume, NOTES_EXT);
        if (!Files.isRegularFile(notes, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.of("");
        }
        try {
            return Optional.of(ContentFileLister.decode(Files.readAllBytes(notes), Integer.MAX_VALUE));
        } catch (IOException e) {
            throw StorageException.failed(e, "unable to read '%s' - %s", notes, e.getMessage());
        }
    }

    /** Replaces a backup's notes; empty or null notes remove the file. */
    public void updateNotes(VolumeName volume, String notes) {
        if (volume.type() != ContentType.BACKUP) {
            throw StorageException.badInput("only backups can have notes");
        }
        Path path = attributeFile(volume, NOTES_EXT);
        if (notes != null && !notes.isEmpty()) {
            files.replaceFile(path, notes.getBytes(StandardCharsets.UTF_8));
        } else if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            files.delete(path);
        }
    }

    public boolean isProtected(VolumeName volume) {
        return volume.type() == ContentType.BACKUP
                && Files.exists(attributeFile(volume, PROTECTED_EXT), LinkOption.NOFOLLOW_LINKS);
    }

    public void updateProtected(VolumeName volume, boolean value) {
        if (volume.type() != ContentType.BACKUP) {
            throw StorageException.badInput("only backups support attribute 'protected'");
        }
        Path path = attributeFile(volume, PROTECTED_EXT);
        if (isProtected(volume) == value) {
            return; // protection status already correct
        }
        if (value) {
            files.replaceFile(path, new byte[0]);
        } else {
            files.delete(path);
        }
    }
}
