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
        Path dir = LockDirectory.resolve(Map.of("VSM_LOCK_DIR", wanted.toString(), "XDG_RUNTIME_DIR", tmp.toString()),
                true, ME, tmp, tmp.resolve("system"));
        assertThat(dir).isEqualTo(wanted).isDirectory();
        assertThat(tmp.resolve("system")).doesNotExist();
    }

    @Test
    void rootUsesTheSystemDirectory() {
        Path system = tmp.resolve("run/lock/vsm");
        assertThat(LockDirectory.resolve(Map.of(), true, "root", tmp, system)).isEqualTo(system).isDirectory();
    }

    @Test
    void otherUsersGetAPrivateDirectoryUnderXdgRuntimeDir() throws Exception {
        Path runtime = Files.createDirectory(tmp.resolve("runtime"));
        Path dir = LockDirectory.resolve(Map.of("XDG_RUNTIME_DIR", runtime.toString()), false, ME, tmp.resolve("unused"),
                tmp.resolve("system"));
        assertThat(dir).isEqualTo(runtime.resolve("vsm-" + ME)).isDirectory();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
        assertThat(tmp.resolve("system")).doesNotExist();
    }

    @Test
    void withoutXdgRuntimeDirTheTempDirectoryIsUsed() {
        Path dir = LockDirectory.resolve(Map.of("XDG_RUNTIME_DIR", "relative/ignored"), false, ME, tmp, tmp.resolve("system"));
        assertThat(dir).isEqualTo(tmp.resolve("vsm-" + ME)).isDirectory();
    }

    @Test
    void aPrivateDirectoryOfSomeoneElseIsRefused() throws Exception {
        Files.createDirectory(tmp.resolve("vsm-mallory"));
        assertThatThrownBy(() -> LockDirectory.resolve(Map.of(), false, "mallory", tmp, tmp.resolve("system")))
                .isInstanceOf(StorageException.class)
                .hasMessage("lock directory '" + tmp.resolve("vsm-mallory") + "' belongs to another user (set VSM_LOCK_DIR to a directory of yours)");
    }

    @Test
    void aFileInTheWayIsReportedWithTheFix() throws Exception {
        Path file = Files.writeString(tmp.resolve("file"), "");
        assertThatThrownBy(() -> LockDirectory.resolve(Map.of("VSM_LOCK_DIR", file.toString()), false, ME, tmp, tmp))
                .isInstanceOf(StorageException.class)
                .hasMessage("lock directory '" + file + "' is not a directory (set VSM_LOCK_DIR to a writable directory)");
    }
}
