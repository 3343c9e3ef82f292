package dev.vsm.config;

import dev.vsm.exec.ShellQuote;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code + ...} lines describing the file-system changes of a configuration edit, as
 * {@code --dry-run} prints them (DESIGN: every change on its own line starting with {@code + },
 * arguments shell-quoted).
 */
final class DryRunLines {
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
        return "+ " + ShellQuote.join(List.of(argv));
    }
}
