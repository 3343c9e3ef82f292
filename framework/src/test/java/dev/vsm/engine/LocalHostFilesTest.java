package dev.vsm.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.testing.RecordingConsole;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LocalHostFiles#replaceFile}: pve's {@code file_set_contents}, a link at the target replaced, not followed. */
class LocalHostFilesTest {
    @TempDir
    Path dir;

    @Test
    void replaceFileWritesWholeFilesWithMode0644() throws IOException {
        Path file = dir.resolve("a.notes");
        LocalHostFiles files = new LocalHostFiles(false, new RecordingConsole());
        files.replaceFile(file, "first".getBytes(StandardCharsets.UTF_8));
        files.replaceFile(file, "second".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readString(file)).isEqualTo("second");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-r--r--");
        try (var entries = Files.list(dir)) {
            assertThat(entries).containsExactly(file);
        }
    }

    @Test
    void aLinkAtTheTargetIsReplacedNotFollowed() throws IOException {
        Path target = Files.writeString(dir.resolve("shadow"), "secret\n");
        Path link = Files.createSymbolicLink(dir.resolve("a.notes"), target);
        new LocalHostFiles(false, new RecordingConsole()).replaceFile(link, "mine".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readString(target)).isEqualTo("secret\n");
        assertThat(Files.isSymbolicLink(link)).isFalse();
        assertThat(Files.readString(link)).isEqualTo("mine");
    }

    @Test
    void aDryRunPrintsTheWriteAndWritesNothing() {
        RecordingConsole console = new RecordingConsole();
        Path file = dir.resolve("with space.notes");
        new LocalHostFiles(true, console).replaceFile(file, new byte[] {1});
        assertThat(console.infos()).containsExactly("+ write '" + file + "'");
        assertThat(file).doesNotExist();
    }
}
