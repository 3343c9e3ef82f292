package dev.vsm.zeroout;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Whether something on this host uses a block device or one of its partitions: a mount
 * ({@code /proc/mounts}), swap ({@code /proc/swaps}) or a holder in sysfs (device-mapper, md,
 * a loop device stacked on it). Java cannot open a device with O_EXCL without O_CREAT, so these
 * three stand in for the kernel's exclusive-open check (blkdiscard makes that check itself; the
 * cstream fallback does not).
 */
final class DeviceUse {
    private final Sysfs sysfs;
    private final Path proc;

    /**
     * @param sysfs where to find holders and partitions
     * @param proc  the directory that stands for {@code /proc}
     */
    public DeviceUse(Sysfs sysfs, Path proc) {
        this.sysfs = requireNonNull(sysfs, "sysfs");
        this.proc = requireNonNull(proc, "proc");
    }

    /** This host's: sysfs as given, {@code /proc}. */
    public static DeviceUse ofThisHost(Sysfs sysfs) {
        return new DeviceUse(sysfs, Path.of("/proc"));
    }

    /** Why the device is in use (one line, with what to do about it), or empty when nothing uses it. */
    public Optional<String> why(BlockDevice device) {
        Set<String> names = new LinkedHashSet<>();
        names.add(device.name());
        names.addAll(sysfs.partitions(device.name()));
        for (String[] mount : table("mounts")) {
            if (mount.length > 1 && names.contains(kernelName(mount[0]))) {
                return Optional.of(String.format(
                        "'%s' is mounted on %s (%s) - unmount it first",
                        device.given(), unescape(mount[1]), kernelName(mount[0])));
            }
        }
        for (String[] swap : table("swaps")) {
            if (names.contains(kernelName(swap[0]))) {
                return Optional.of(String.format(
                        "'%s' is in use as swap (%s) - swapoff it first", device.given(), kernelName(swap[0])));
            }
        }
        for (String name : names) {
            List<String> holders = sysfs.holders(name);
            if (!holders.isEmpty()) {
                return Optional.of(String.format(
                        "'%s' is in use: %s is held by %s - remove what holds it first "
                                + "(dmsetup, mdadm, losetup -d)",
                        device.given(), name, String.join(", ", holders)));
            }
        }
        return Optional.empty();
    }

    /** The rows of a /proc table, split on blanks; an unreadable table has none. */
    private List<String[]> table(String file) {
        List<String[]> rows = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(proc.resolve(file))) {
                String[] fields = line.strip().split("\\s+");
                if (fields.length > 0 && fields[0].startsWith("/")) {
                    rows.add(fields);
                }
            }
        } catch (IOException e) {
            // no such table here: nothing to find in it
        }
        return rows;
    }

    /** The kernel name behind a device path in a /proc table, symlinks followed; the path itself if it cannot be resolved. */
    private static String kernelName(String escapedPath) {
        Path path = Path.of(unescape(escapedPath));
        try {
            path = path.toRealPath();
        } catch (IOException e) {
            // a source that is gone: compare its name as written
        }
        return path.getFileName() == null ? path.toString() : path.getFileName().toString();
    }

    /** /proc tables write blanks, tabs, newlines and backslashes in octal ({@code \040}). */
    static String unescape(String field) {
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\'
                    && i + 4 <= field.length()
                    && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
