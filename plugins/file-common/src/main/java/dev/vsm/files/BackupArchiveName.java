package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the name of a vzdump archive says (pve's {@code archive_info}):
 * {@code vzdump-<type>-<vmid>-<YYYY_MM_DD-HH_MM_SS>.<ext>} gives the guest type, owner and time.
 *
 * @param type   {@code qemu}, {@code lxc} or {@code openvz}
 * @param vmid   the owner, for a standard name; else null
 * @param ctime  the backup time in seconds since the epoch (the name holds local time), for a
 *               standard name; else null
 */
public record BackupArchiveName(String type, Integer vmid, Long ctime) {
    private static final Pattern VZDUMP = Pattern.compile("vzdump-(lxc|openvz|qemu)-.+" + ContentFileNames.BACKUP_EXT);
    private static final Pattern STANDARD = Pattern.compile(
            "vzdump-(lxc|openvz|qemu)-([1-9][0-9]{2,8})-(\\d{4})_(\\d{2})_(\\d{2})-(\\d{2})_(\\d{2})_(\\d{2})"
                    + ContentFileNames.BACKUP_EXT);

    public BackupArchiveName {
        requireNonNull(type, "type");
    }

    /** Reads a vzdump archive name; empty for other names. Times are read in {@code zone}. */
    public static Optional<BackupArchiveName> parse(String fileName, ZoneId zone) {
        Matcher m = VZDUMP.matcher(fileName);
        if (!m.matches()) {
            return Optional.empty();
        }
        String type = m.group(1);
        Matcher std = STANDARD.matcher(fileName);
        if (!std.matches()) {
            return Optional.of(new BackupArchiveName(type, null, null));
        }
        Long ctime;
        try {
            ctime = LocalDateTime.of(num(std, 3), num(std, 4), num(std, 5), num(std, 6), num(std, 7), num(std, 8))
                    .atZone(zone)
                    .toEpochSecond();
        } catch (DateTimeException e) {
            ctime = null;
        }
        return Optional.of(new BackupArchiveName(type, num(std, 2), ctime));
    }

    private static int num(Matcher m, int group) {
        return Integer.parseInt(m.group(group));
    }
}
