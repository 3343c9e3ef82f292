package dev.vsm.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The {@code + ...} lines describing the file-system changes of a configuration edit, as
 * {@code --dry-run} prints them (DESIGN: every change on its own line starting with {@code + },
 * arguments shell-quoted).
 */
final class DryRunLines {
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    private DryRunLines() {}

    /** {@code + mkdir -p <dir>} when the directory is missing, then {@code + write <file>}. */
    static List<String> writeFile(Path file) {
        List<String> lines = new ArrayList<>();
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            lines.add(line("mkdir", "-p", dir.toString()));
        }
        lines.add(line("write", file.toString()));
        return List.copyOf(lines);
    }

    static String line(String... argv) {
        StringBuilder b = new StringBuilder("+");
        for (String arg : argv) {
            b.append(' ').append(quote(arg));
        }
        return b.toString();
    }

    /** {@code arg} as a POSIX shell word. */
    static String quote(String arg) {
        return SAFE.matcher(arg).matches() ? arg : "'" + arg.replace("'", "'\\''") + "'";
    }
}
