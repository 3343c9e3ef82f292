package dev.vsm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * vsm's image formats are a type ({@code VolumeFormat}): no main source of any module spells
 * {@code "raw"}, {@code "qcow2"}, {@code "vmdk"} or {@code "subvol"} as a string literal, outside
 * the enum itself and the command lines the launcher's class-data-sharing archive is trained with.
 * Comments and javadoc may name them.
 */
class FormatLiteralsTest {
    private static final Set<String> FORMATS = Set.of("raw", "qcow2", "vmdk", "subvol");

    /** The sources that may spell them, relative to the repository root. */
    private static final Set<String> ALLOWED =
            Set.of("spi/src/main/java/dev/vsm/spi/VolumeFormat.java", "cli/src/main/java/dev/vsm/cli/CdsTraining.java");

    @Test
    void mainSourcesUseVolumeFormatNotItsText() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.find(
                root,
                12,
                (f, attributes) -> attributes.isRegularFile()
                        && root.relativize(f).toString().matches("(?:[^./][^/]*/)+src/main/java/.*\\.java"))) {
            files.map(root::relativize)
                    .filter(f -> !ALLOWED.contains(f.toString()))
                    .sorted()
                    .forEach(f -> found.addAll(formatLiterals(f, read(root.resolve(f)))));
        }
        assertThat(found)
                .as("format names as string literals (use VolumeFormat)")
                .isEmpty();
        assertThat(formatLiterals(Path.of("X.java"), "/** \"raw\" */ // \"vmdk\"\nif (\"qcow2\".equals(f)) {}"))
                .as("the scan itself")
                .containsExactly("X.java:2: \"qcow2\"");
    }

    /** {@code file:line: "text"} for each string literal of the source that is a format name; comments skipped. */
    static List<String> formatLiterals(Path file, String source) {
        List<String> found = new ArrayList<>();
        int line = 1;
        int i = 0;
        while (i < source.length()) {
            char c = source.charAt(i);
            if (c == '\n') {
                line++;
                i++;
            } else if (source.startsWith("//", i)) {
                i = source.indexOf('\n', i) < 0 ? source.length() : source.indexOf('\n', i);
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? source.length() : end + 2;
                line += count(source, i, end);
                i = end;
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                end = end < 0 ? source.length() : end + 3;
                line += count(source, i, end);
                i = end;
            } else if (c == '"' || c == '\'') {
                int end = i + 1;
                while (end < source.length() && source.charAt(end) != c && source.charAt(end) != '\n') {
                    end += source.charAt(end) == '\\' ? 2 : 1;
                }
                String text = source.substring(i + 1, Math.min(end, source.length()));
                if (c == '"' && FORMATS.contains(text)) {
                    found.add(file + ":" + line + ": \"" + text + "\"");
                }
                i = end + 1;
            } else {
                i++;
            }
        }
        return found;
    }

    private static int count(String source, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            if (source.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
