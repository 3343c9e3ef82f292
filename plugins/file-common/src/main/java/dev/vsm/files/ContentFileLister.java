package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.BackupDetails;
import dev.vsm.spi.Console;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lists the files of the non-image content types (pve's {@code get_subdir_files}): ISO images and
 * container templates (only when no owner is asked for), backups, snippets and import sources;
 * beyond pve, each OVA's disks too ({@link OvaDisks}).
 */
public final class ContentFileLister {
    private final String storeid;
    private final DirLayout layout;
    private final ZoneId zone;
    private final Console console;

    /**
     * @param zone    the time zone backup names are written in (pve: the host's local time)
     * @param console where a file that is a symbolic link out of the storage is warned about (and skipped)
     */
    public ContentFileLister(String storeid, DirLayout layout, ZoneId zone, Console console) {
        this.console = requireNonNull(console, "console");
        this.storeid = requireNonNull(storeid, "storeid");
        this.layout = requireNonNull(layout, "layout");
        this.zone = requireNonNull(zone, "zone");
    }

    /** The files of one content type, of one owner when {@code vmid} is not null. */
    public List<VolumeInfo> list(ContentType type, Integer vmid) {
        if (vmid != null && (type == ContentType.ISO || type == ContentType.VZTMPL)) {
            return List.of();
        }
        List<VolumeInfo> found = new ArrayList<>();
        for (Path file : FileStat.entries(layout.subdir(type))) {
            Optional<String> linkOut = layout.linkOut(file);
            if (linkOut.isPresent()) {
                console.warn("skipping '" + file + "': " + linkOut.get()
                        + " (vsm does not follow symbolic links inside a storage)");
                continue;
            }
            Optional<BasicFileAttributes> stat = FileStat.stat(file);
            if (stat.isEmpty() || stat.get().isDirectory()) {
                continue;
            }
            Optional<VolumeInfo> item = describe(type, file, vmid, stat.get());
            item.ifPresent(found::add);
            if (item.isPresent() && item.get().format().equals("ova")) {
                found.addAll(OvaDisks.list(storeid, file, item.get().ctime()));
            }
        }
        return found;
    }

    private Optional<VolumeInfo> describe(ContentType type, Path file, Integer vmid, BasicFileAttributes stat) {
        String name = file.getFileName().toString();
        String volid = storeid + ":" + type.id() + "/" + name;
        long size = stat.size();
        Long ctime = FileStat.ctime(file);
        Optional<String> format = switch (type) {
            case ISO -> ContentFileNames.isoFormat(name);
            case VZTMPL -> ContentFileNames.templateFormat(name);
            case SNIPPETS -> Optional.of("snippet");
            case IMPORT -> ContentFileNames.importFormat(name);
            case BACKUP -> ContentFileNames.backupFormat(name);
            default -> Optional.empty();
        };
        if (format.isEmpty()) {
            return Optional.empty();
        }
        if (type != ContentType.BACKUP) {
            return Optional.of(VolumeInfo.builder(volid, format.get(), type)
                    .size(size)
                    .ctime(ctime)
                    .build());
        }
        // only match the VMID in the file name, not in a parent directory
        if (vmid != null
                && !Pattern.compile("\\S+-" + vmid + "-\\S+").matcher(name).find()) {
            return Optional.empty();
        }
        Optional<BackupArchiveName> archive = BackupArchiveName.parse(name, zone);
        if (archive.isPresent() && archive.get().ctime() != null) {
            ctime = archive.get().ctime();
        }
        Integer owner = vmid != null ? vmid : ownerFromName(name, format.get());
        BackupDetails details = BackupDetails.of(
                archive.map(BackupArchiveName::type).orElse("unknown"),
                notes(file),
                Files.exists(Path.of(file + BackupAttributes.PROTECTED_EXT), java.nio.file.LinkOption.NOFOLLOW_LINKS));
        return Optional.of(VolumeInfo.builder(volid, format.get(), type)
                .size(size)
                .vmid(owner)
                .ctime(ctime)
                .backup(details)
                .build());
    }

    private static Integer ownerFromName(String name, String format) {
        Matcher m = Pattern.compile("-([1-9][0-9]{2,8})-[^/]+\\." + Pattern.quote(format) + "$")
                .matcher(name);
        return m.find() ? Integer.valueOf(m.group(1)) : null;
    }

    /**
     * The first line of the archive's notes file, UTF-8 (read as Latin-1 when it is not valid
     * UTF-8), or null; read by descriptor and bounded ({@link BackupAttributes#readNotes}).
     */
    private String notes(Path archive) {
        byte[] bytes;
        try {
            bytes = BackupAttributes.readNotes(layout, archive).orElse(null);
        } catch (IOException | StorageException e) {
            return null;
        }
        if (bytes == null || bytes.length == 0) {
            return null;
        }
        return decode(bytes, 1);
    }

    /**
     * The first {@code lines} lines of a notes file (without the last line feed when cut), UTF-8,
     * or Latin-1 when they are not valid UTF-8 (pve: {@code decode('UTF-8', $data, 1) // $data}).
     */
    static String decode(byte[] bytes, int lines) {
        int end = 0;
        int seen = 0;
        while (end < bytes.length && !(bytes[end] == '\n' && ++seen == lines)) {
            end++;
        }
        ByteBuffer text = ByteBuffer.wrap(bytes, 0, end);
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(text)
                    .toString();
        } catch (CharacterCodingException e) {
            return new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
        }
    }
}
