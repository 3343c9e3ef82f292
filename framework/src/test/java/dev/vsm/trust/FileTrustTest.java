package dev.vsm.trust;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import dev.vsm.testing.RootTest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The StrictModes rule on real files (run as root: {@code chown} to uid 65534 plays another user). */
@RootTest
class FileTrustTest {
    @TempDir
    Path tmp;

    @BeforeEach
    void root() {
        dev.vsm.testing.HostTools.require("chown plays another user");
    }

    @Test
    void ownFilesInOwnDirectoriesAreTrusted() throws Exception {
        Path file = Files.writeString(Files.createDirectory(tmp.resolve("d")).resolve("f"), "");
        assertThat(FileTrust.untrusted(file)).isEmpty();
    }

    @Test
    void aFileOthersMayWriteOrAnotherUserOwnsIsNot() throws Exception {
        Path file = Files.writeString(tmp.resolve("f"), "");
        chmod(file, "0664");
        assertThat(FileTrust.untrusted(file))
                .hasValueSatisfying(p -> assertThat(p.describe())
                        .isEqualTo("'" + file
                                + "' is writable by group or others (owned by uid 0 mode 0664): chmod go-w " + file));
        chmod(file, "0644");
        Files.setAttribute(file, "unix:uid", 65534);
        assertThat(FileTrust.untrusted(file))
                .hasValueSatisfying(p -> assertThat(p.why()).isEqualTo("is owned by another user (not root)"));
    }

    @Test
    void aDirectoryAboveOthersMayWriteIsNotUnlessSticky() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("shared"));
        Path file = Files.writeString(Files.createDirectory(dir.resolve("mine")).resolve("f"), "");
        chmod(dir, "0777");
        assertThat(FileTrust.untrusted(file))
                .hasValueSatisfying(p -> assertThat(p.path()).isEqualTo(dir));
        chmod(dir, "1777");
        assertThat(FileTrust.untrusted(file)).isEmpty();
        chmod(file, "1666");
        assertThat(FileTrust.untrusted(file))
                .as("the sticky bit excuses directories above only")
                .isPresent();
    }

    @Test
    void aLinkNeedsTrustedDirectoriesAboveItAndAboveItsTarget() throws Exception {
        Path target =
                Files.writeString(Files.createDirectory(tmp.resolve("safe")).resolve("f"), "");
        Path open = Files.createDirectory(tmp.resolve("open"));
        Path link = Files.createSymbolicLink(open.resolve("link"), target);
        assertThat(FileTrust.untrusted(link)).isEmpty();
        chmod(open, "0777");
        assertThat(FileTrust.untrusted(link))
                .hasValueSatisfying(p -> assertThat(p.path()).isEqualTo(open));
        chmod(open, "0755");
        chmod(target.getParent(), "0777");
        assertThat(FileTrust.untrusted(link))
                .hasValueSatisfying(p -> assertThat(p.path()).isEqualTo(target.getParent()));
    }

    @Test
    void aPathNotYetMadeIsJudgedByTheDirectoryItWouldBeMadeIn() throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Path later = open.resolve("a/b/c");
        assertThat(FileTrust.untrustedOrWhereMade(later)).isEmpty();
        chmod(open, "1777");
        assertThat(FileTrust.untrustedOrWhereMade(later))
                .as("a sticky directory is no place for root to make one: another user may make it first")
                .hasValueSatisfying(p -> assertThat(p.path()).isEqualTo(open));
        assertThatThrownBy(() -> FileTrust.requireTrustedAsRoot(later, "$X '" + later + "'", "or unset X"))
                .isInstanceOf(StorageException.class)
                .hasFieldOrPropertyWithValue("kind", StorageException.Kind.BAD_INPUT)
                .hasMessage("$X '" + later + "' refused as root: '" + open
                        + "' is writable by group or others (owned by uid 0 mode 1777): chmod go-w " + open
                        + ", or unset X");
    }

    private static void chmod(Path path, String mode) throws Exception {
        assertThat(new ProcessBuilder("chmod", mode, path.toString())
                        .inheritIO()
                        .start()
                        .waitFor())
                .isZero();
    }
}
