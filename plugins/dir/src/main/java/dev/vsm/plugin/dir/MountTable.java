package dev.vsm.plugin.dir;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The mount points of this host, from {@code /proc/mounts} (pve's {@code path_is_mounted}). */
final class MountTable {
    static final Path PROC_MOUNTS = Path.of("/proc/mounts");

    private final Path mountsFile;

    MountTable(Path mountsFile) {
        this.mountsFile = requireNonNull(mountsFile, "mountsFile");
    }

    /** Whether {@code mountPoint} (symbolic links resolved) is mounted. A missing path is not. */
    boolean isMounted(Path mountPoint) {
        String real;
        try {
            real = mountPoint.toRealPath().toString();
        } catch (IOException e) {
            return false;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(mountsFile, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return false;
        }
        for (String line : lines) {
            String[] fields = line.split(" ");
            if (fields.length > 1 && unescape(fields[1]).equals(real)) {
                return true;
            }
        }
        return false;
    }

    /** The kernel writes space, tab, newline and backslash in mount points as {@code \040}-style octal escapes. */
    static String unescape(String field) {
        StringBuilder b = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && isOctal(field, i + 1)) {
                b.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static boolean isOctal(String s, int from) {
        if (from + 3 > s.length()) {
            return false;
        }
        for (int i = from; i < from + 3; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '7') {
                return false;
            }
        }
        return true;
    }
}
