package dev.vsm.backup;

import static java.util.Objects.requireNonNull;

import dev.vsm.files.BackupArchiveName;
import dev.vsm.files.ContentFileNames;
import dev.vsm.spi.StorageException;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the file name of a vzdump archive says (pve's {@code archive_info}): its guest type, format,
 * compression; for a standard name
 * ({@code vzdump-<type>-<vmid>-<YYYY_MM_DD-HH_MM_SS>.<ext>}) also its owner, time, and the names of
 * its log and notes files.
 *
 * @param filename      the archive's file name (the last path element)
 * @param type          {@code qemu}, {@code lxc} or {@code openvz}
 * @param format        {@code tar} or {@code vma}
 * @param compression   {@code gz}, {@code lzo}, {@code zst}, {@code bz2}, or null
 * @param logFilename   for a standard name, {@code <name without extension>.log}; else null
 * @param notesFilename for a standard name, {@code <filename>.notes}; else null
 * @param vmid          for a standard name, the owner; else null
 * @param ctime         for a standard name, the backup time (seconds since the epoch; the name holds local time); else null
 * @param isStdName     whether the name is a standard one
 */
public record ArchiveInfo(
        String filename,
        String type,
        String format,
        String compression,
        String logFilename,
        String notesFilename,
        Integer vmid,
        Long ctime,
        boolean isStdName) {
    public static final String LOG_EXT = ".log";
    public static final String NOTES_EXT = ".notes";
    public static final String PROTECTED_EXT = ".protected";

    private static final Map<String, List<String>> DECOMPRESSORS = Map.of(
            "gz", List.of("zcat"),
            "lzo", List.of("lzop", "-d", "-c"),
            "zst", List.of("zstd", "-q", "-d", "-c"),
            "bz2", List.of("bzcat", "-q"));

    /**
     * The command (reading standard input, writing standard output) that decompresses an archive
     * compressed with {@code compression} ({@code gz}, {@code lzo}, {@code zst}, {@code bz2}).
     */
    static List<String> streamDecompressor(String compression) {
        return DECOMPRESSORS.get(compression);
    }

    public ArchiveInfo {
        requireNonNull(filename, "filename");
        requireNonNull(type, "type");
        requireNonNull(format, "format");
    }

    /**
     * Reads an archive's name (a path or volume name: only its last element counts), backup times
     * in {@code zone}.
     *
     * @throws StorageException (bad input) pve's {@code ERROR: couldn't determine archive info from '<archive>'}
     *                          for a name that is no vzdump archive's
     */
    public static ArchiveInfo of(String archive, ZoneId zone) {
        String filename = archive.substring(archive.lastIndexOf('/') + 1);
        Optional<BackupArchiveName> name = BackupArchiveName.parse(filename, zone);
        Optional<String> extension = ContentFileNames.backupFormat(filename);
        if (name.isEmpty() || extension.isEmpty()) {
            throw StorageException.badInput("ERROR: couldn't determine archive info from '%s'", archive);
        }
        String ext = extension.get();
        int dot = ext.indexOf('.');
        String format = dot < 0 ? ext : ext.substring(0, dot);
        String compression = dot < 0 ? null : ext.substring(dot + 1);
        if (format.equals("tgz")) {
            format = "tar";
            compression = "gz";
        }
        BackupArchiveName n = name.get();
        if (n.vmid() == null || n.ctime() == null) {
            return new ArchiveInfo(filename, n.type(), format, compression, null, null, null, null, false);
        }
        String stem = filename.substring(0, filename.length() - ext.length() - 1);
        return new ArchiveInfo(
                filename,
                n.type(),
                format,
                compression,
                stem + LOG_EXT,
                filename + NOTES_EXT,
                n.vmid(),
                n.ctime(),
                true);
    }
}
