package dev.vsm.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LockDirectoryTest {
    private static final String ME = System.getProperty("user.name");

    @TempDir
    Path tmp;

    @Test
    void theEnvironmentVariableWinsAndIsCreated() {
        Path wanted = tmp.resolve("locks/here");
        Path dir = LockDirectory.resolve(
                Map.of("VSM_LOCK_DIR", wanted.toString(), "XDG_RUNTIME_DIR", tmp.toString()),
                true,
                ME,
                tmp,
                tmp.resolve("system"));
        assertThat(dir).isEqualTo(wanted).isDirectory();
        assertThat(tmp.resolve("system")).doesNotExist();
    }

    @Test
    void rootUsesTheSystemDirectory() {
        Path system = tmp.resolve("run/lock/vsm");
        assertThat(LockDirectory.resolve(Map.of(), true, "root", tmp, system))
                .isEqualTo(system)
                .isDirectory();
    }

    @Test
    void otherUsersGetAPrivateDirectoryUnderXdgRuntimeDir() throws Exception {
        Path runtime = Files.createDirectory(tmp.resolve("runtime"));
        Path dir = LockDirectory.resolve(
                Map.of("XDG_RUNTIME_DIR", runtime.toString()), false, ME, tmp.resolve("unused"), tmp.resolve("system"));
        assertThat(dir).isEqualTo(runtime.resolve("vsm-" + ME)).isDirectory();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
                .isEqualTo("rwx------");
        assertThat(tmp.resolve("system")).doesNotExist();
    }

    @Test
    void withoutXdgRuntimeDirTheTempDirectoryIsUsed() {
        Path dir = LockDirectory.resolve(
                Map.of("XDG_RUNTIME_DIR", "relative/ignored"), false, ME, tmp, tmp.resolve("system"));
        assertThat(dir).isEqualTo(tmp.resolve("vsm-" + ME)).isDirectory();
    }

    @Test
    void aPrivateDirectoryOfSomeoneElseIsRefused() throws Exception {
        Files.createDirectory(tmp.resolve("vsm-mallory"));
        assertThatThrownBy(() -> LockDirectory.resolve(Map.of(), false, "mallory", tmp, tmp.resolve("system")))
                .isInstanceOf(StorageException.class)
                .hasMessage("lock directory '" + tmp.resolve("vsm-mallory")
                        + "' is owned by uid 0 mode 0755, not mallory's alone: remove it" + " (rm -r "
                        + tmp.resolve("vsm-mallory")
                        + ") and run vsm again, or set VSM_LOCK_DIR to a directory of yours");
    }

    @Test
    void rootsDirectoryIsMadeOwnerOnlyAndOneOthersMayWriteIsRefused() throws Exception {
        Path system = tmp.resolve("run/lock/vsm");
        LockDirectory.resolve(Map.of(), true, "root", tmp, system);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(system)))
                .isEqualTo("rwx------");
        chmod(system, "1777");
        assertThatThrownBy(() -> LockDirectory.resolve(Map.of(), true, "root", tmp, system))
                .isInstanceOf(StorageException.class)
                .hasMessage("lock directory '" + system
                        + "' is owned by uid 0 mode 1777, not root's alone: remove it (rm -r " + system
                        + ") and run vsm again");
        Files.setPosixFilePermissions(system, PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(system, "unix:uid", 65534);
        assertThatThrownBy(() -> LockDirectory.resolve(Map.of(), true, "root", tmp, system))
                .hasMessageStartingWith(
                        "lock directory '" + system + "' is owned by uid 65534 mode 0700, not root's alone");
    }

    @Test
    void anExplicitDirectoryGetsTheSameChecksAndALinkIsRefused() throws Exception {
        Path target = Files.createDirectory(tmp.resolve("target"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), target);
        assertThatThrownBy(() -> LockDirectory.resolve(
                        Map.of("VSM_LOCK_DIR", link.toString()), true, "root", tmp, tmp.resolve("system")))
                .hasMessage("lock directory '" + link + "' is a symbolic link: remove it (rm " + link
                        + ") and run vsm again," + " or set VSM_LOCK_DIR to a directory of yours");
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxrwx---"));
        assertThatThrownBy(() -> LockDirectory.resolve(
                        Map.of("VSM_LOCK_DIR", target.toString()), true, "root", tmp, tmp.resolve("system")))
                .hasMessageStartingWith(
                        "lock directory '" + target + "' is owned by uid 0 mode 0770, not root's alone");
    }

    @Test
    void aDirectoryAboveThatAnotherUserMayChangeIsRefused() throws Exception {
        Path parent = Files.createDirectory(tmp.resolve("shared"));
        Files.setPosixFilePermissions(parent, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path locks = parent.resolve("locks");
        assertThatThrownBy(() -> LockDirectory.resolve(
                        Map.of("VSM_LOCK_DIR", locks.toString()), true, "root", tmp, tmp.resolve("system")))
                .hasMessage("lock directory '" + locks + "' is in a directory another user may change: '" + parent
                        + "' is writable by" + " group or others (owned by uid 0 mode 0777): chmod go-w " + parent
                        + " (or set VSM_LOCK_DIR to another directory)");
        chmod(parent, "1777");
        assertThat(LockDirectory.resolve(
                        Map.of("VSM_LOCK_DIR", locks.toString()), true, "root", tmp, tmp.resolve("system")))
                .as("a sticky directory, as /run/lock is")
                .isEqualTo(locks);
    }

    @Test
    void aFileInTheWayIsReportedWithTheFix() throws Exception {
        Path file = Files.writeString(tmp.resolve("file"), "");
        assertThatThrownBy(() -> LockDirectory.resolve(Map.of("VSM_LOCK_DIR", file.toString()), false, ME, tmp, tmp))
                .isInstanceOf(StorageException.class)
                .hasMessage(
                        "lock directory '" + file + "' is not a directory (set VSM_LOCK_DIR to a writable directory)");
    }

    private static void chmod(Path path, String mode) throws Exception {
        assertThat(new ProcessBuilder("chmod", mode, path.toString())
                        .inheritIO()
                        .start()
                        .waitFor())
                .isZero();
    }
}
