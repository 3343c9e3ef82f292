package dev.vsm.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import dev.vsm.testing.RecordingConsole;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LocalHostFiles#replaceFile}: pve's {@code file_set_contents}, a link at the target
 * replaced, not followed; {@link LocalHostFiles#move} and {@link LocalHostFiles#deleteIdentified}:
 * conditional on what the operation saw.
 */
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

    // --- what a process that stalled past its cluster lock meets: the name was taken meanwhile

    @Test
    void moveNeverReplacesAFileOrADirectoryMadeUnderTheTarget() throws IOException {
        LocalHostFiles files = new LocalHostFiles(false, new RecordingConsole());
        Path mine = Files.writeString(dir.resolve(".vm-100-disk-0.raw.tmp"), "mine");
        Path theirs = Files.writeString(dir.resolve("vm-100-disk-0.raw"), "theirs");
        assertThatThrownBy(() -> files.move(mine, theirs))
                .isInstanceOf(StorageException.class)
                .hasMessage("rename '" + mine + "' to '" + theirs + "' failed - target exists");
        assertThat(Files.readString(theirs)).isEqualTo("theirs");
        assertThat(Files.readString(mine)).isEqualTo("mine");

        Path subvol = Files.createDirectory(dir.resolve("subvol-100-disk-0.subvol"));
        Path theirSubvol = Files.createDirectory(dir.resolve("subvol-100-disk-1.subvol"));
        assertThatThrownBy(() -> files.move(subvol, theirSubvol)).hasMessageEndingWith("target exists");
        assertThat(subvol).isDirectory();
        assertThatThrownBy(() -> files.move(subvol, theirs)).hasMessageEndingWith("target exists");
        assertThat(Files.readString(theirs)).isEqualTo("theirs");

        Files.writeString(subvol.resolve("file"), "in the subvol");
        Path moved = dir.resolve("subvol-101-disk-0.subvol");
        files.move(subvol, moved);
        assertThat(Files.readString(moved.resolve("file"))).isEqualTo("in the subvol");
        Path published = dir.resolve("vm-100-disk-1.raw");
        files.move(mine, published);
        assertThat(Files.readString(published)).isEqualTo("mine");
        try (var entries = Files.list(dir)) {
            assertThat(entries).containsExactlyInAnyOrder(theirs, theirSubvol, moved, published);
        }
    }

    @Test
    void deleteIdentifiedRemovesOnlyTheFileItWasGiven() throws Exception {
        LocalHostFiles files = new LocalHostFiles(false, new RecordingConsole());
        Path volume = Files.writeString(dir.resolve("vm-100-disk-0.raw"), "freed");
        BasicFileAttributes seen = attributes(volume);
        Thread.sleep(20); // more than a tick of the kernel's file time stamps
        Files.delete(volume); // another node frees it ...
        Files.writeString(volume, "made again"); // ... and allocates the name again, often on the same inode
        assertThatThrownBy(() -> files.deleteIdentified(volume, seen))
                .isInstanceOf(StorageException.class)
                .hasMessage("'" + volume + "' is no longer the file this command found (replaced meanwhile by "
                        + "another node or process?): left it alone");
        assertThat(Files.readString(volume)).isEqualTo("made again");
        BasicFileAttributes current = attributes(volume);

        Path subvol = Files.createDirectory(dir.resolve("subvol-100-disk-0.subvol"));
        BasicFileAttributes seenSubvol = attributes(subvol);
        Thread.sleep(20);
        Files.delete(subvol);
        Files.createDirectory(subvol);
        Files.writeString(subvol.resolve("file"), "theirs");
        assertThatThrownBy(() -> files.deleteIdentified(subvol, seenSubvol)).hasMessageEndingWith("left it alone");
        assertThat(Files.readString(subvol.resolve("file"))).isEqualTo("theirs");
        try (var entries = Files.list(dir)) {
            assertThat(entries).as("no tombstone left").containsExactlyInAnyOrder(volume, subvol);
        }

        files.deleteIdentified(volume, current);
        files.deleteIdentified(subvol, attributes(subvol));
        try (var entries = Files.list(dir)) {
            assertThat(entries).isEmpty();
        }
        assertThatThrownBy(() -> files.deleteIdentified(volume, current))
                .hasMessage("unlink '" + volume + "' failed - No such file or directory");
    }

    @Test
    void aDryRunPrintsTheRemovalAndRemovesNothing() throws IOException {
        RecordingConsole console = new RecordingConsole();
        Path volume = Files.writeString(dir.resolve("vm-100-disk-0.raw"), "kept");
        new LocalHostFiles(true, console).deleteIdentified(volume, attributes(volume));
        assertThat(console.infos()).containsExactly("+ rm -f " + volume);
        assertThat(Files.readString(volume)).isEqualTo("kept");
    }

    private static BasicFileAttributes attributes(Path file) throws IOException {
        return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }
}
