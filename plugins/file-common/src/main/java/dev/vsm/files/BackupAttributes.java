package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.HeldFile;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.Arrays;
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

    /**
     * At most this much of a notes file is read (pve's notes are a few lines a user typed): a
     * larger one, such as a sparse file of gigabytes a writer of the backup directory left, is
     * read up to here.
     */
    static final int MAX_NOTES_BYTES = 1 << 20;

    /**
     * The file beside the volume's archive that holds one attribute, under the containment rule
     * every volume's path is ({@link DirLayout#linkOut}): a directory on the way that is a link out
     * of the storage is refused, never written through (a link at the file itself is replaced when
     * written, never followed).
     */
    private Path attributeFile(VolumeName volume, String extension) {
        Path archive = layout.path(volume);
        Path file = Path.of(archive + extension);
        layout.linkOut(archive.getParent()).ifPresent(why -> {
            throw StorageException.badInput(
                    "volume '%s': %s - vsm does not follow symbolic links inside a storage "
                            + "(remove the link, or move the file into the storage)",
                    VolumeId.printable(volume.volname()), why);
        });
        return file;
    }

    /** A backup's notes, all lines ({@code ""} without a notes file); empty for other content. */
    public Optional<String> notes(VolumeName volume) {
        if (volume.type() != ContentType.BACKUP) {
            return Optional.empty();
        }
        Path notes = attributeFile(volume, NOTES_EXT);
        try {
            return Optional.of(readNotes(layout, layout.path(volume))
                    .map(bytes -> ContentFileLister.decode(bytes, Integer.MAX_VALUE))
                    .orElse(""));
        } catch (IOException e) {
            throw StorageException.failed(e, "unable to read '%s' - %s", notes, e.getMessage());
        }
    }

    /**
     * The bytes of {@code archive}'s notes file, at most {@link #MAX_NOTES_BYTES}, read by descriptor
     * from the storage's base ({@link StorageTree}): what is read is the regular file checked, never a
     * link or a name swapped in after the check. Empty when there is no such regular file.
     */
    static Optional<byte[]> readNotes(DirLayout layout, Path archive) throws IOException {
        String name = archive.getFileName() + NOTES_EXT;
        try (StorageTree.Dir dir = new StorageTree(layout.basePath()).open(archive.getParent())) {
            if (!dir.stat(name).map(PosixFileAttributes::isRegularFile).orElse(false)) {
                return Optional.empty();
            }
            try (HeldFile file = dir.openRegular(name)) {
                ByteBuffer buffer =
                        ByteBuffer.allocate((int) Math.min(file.channel().size(), MAX_NOTES_BYTES));
                while (buffer.hasRemaining() && file.channel().read(buffer) >= 0) {
                    // read on
                }
                return Optional.of(Arrays.copyOf(buffer.array(), buffer.position()));
            }
        } catch (NoSuchFileException e) {
            return Optional.empty();
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
