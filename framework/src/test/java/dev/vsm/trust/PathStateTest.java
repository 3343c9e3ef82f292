package dev.vsm.trust;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PathStateTest {
    @TempDir
    Path dir;

    @Test
    void anUntouchedFileIsUnchangedAndReadingItChangesNothing() throws Exception {
        Path file = Files.writeString(dir.resolve("disk.img"), "image");
        PathState state = PathState.of(file);
        Files.readAllBytes(file);
        assertThat(state.changed()).isNull();
    }

    @Test
    void aWriteAReplacementAndARemovalShow() throws Exception {
        Path file = Files.writeString(dir.resolve("disk.img"), "image");
        PathState state = PathState.of(file);
        Files.writeString(file, "other");
        assertThat(state.changed()).isEqualTo(file);

        state = PathState.of(file);
        Path other = Files.writeString(dir.resolve("other.img"), "other");
        Files.move(other, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(state.changed()).isEqualTo(file);

        state = PathState.of(file);
        Files.delete(file);
        assertThat(state.changed()).isEqualTo(file);
    }

    @Test
    void aSwapUndoneBeforeTheCheckStillShows() throws Exception {
        Path file = Files.writeString(dir.resolve("disk.img"), "image");
        PathState state = PathState.of(file);
        Path aside = dir.resolve("aside");
        Files.move(file, aside, StandardCopyOption.ATOMIC_MOVE);
        Files.writeString(file, "evil");
        Files.move(aside, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(Files.readString(file)).isEqualTo("image");
        assertThat(state.changed())
                .as("the same inode back, its change time moved")
                .isEqualTo(file);
    }

    @Test
    void aDirectoryOthersMayChangeIsWatchedAndOneOnlyTheCallerMayChangeIsNot() throws Exception {
        Path open = Files.createDirectory(dir.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path inner = Files.createDirectory(open.resolve("inner"));
        Path file = Files.writeString(inner.resolve("disk.img"), "image");
        PathState state = PathState.of(file);
        Files.writeString(dir.resolve("a-sibling-of-open"), "x"); // the caller's own directory: its ctime is not kept
        assertThat(state.changed()).isNull();

        Path away = open.resolve("away");
        Files.move(inner, away, StandardCopyOption.ATOMIC_MOVE);
        Files.createDirectory(inner);
        Files.writeString(inner.resolve("disk.img"), "evil");
        Files.delete(inner.resolve("disk.img"));
        Files.delete(inner);
        Files.move(away, inner, StandardCopyOption.ATOMIC_MOVE);
        assertThat(state.changed())
                .as("'inner' is in a directory anyone may write: renamed away and back")
                .isEqualTo(inner);
    }

    @Test
    void aLinkOnTheWayIsFollowedAndWatchedOnBothWays() throws Exception {
        Path real = Files.createDirectory(dir.resolve("real"));
        Path file = Files.writeString(real.resolve("disk.img"), "image");
        Path link = Files.createSymbolicLink(dir.resolve("link"), real);
        PathState state = PathState.of(link.resolve("disk.img"));
        assertThat(state.changed()).isNull();
        Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
        Files.writeString(elsewhere.resolve("disk.img"), "evil");
        Path next = Files.createSymbolicLink(dir.resolve("next"), elsewhere);
        Files.move(next, link, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThat(state.changed()).isEqualTo(link);
        assertThat(file).exists();
    }
}
