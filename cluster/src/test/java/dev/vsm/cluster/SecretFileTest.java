package dev.vsm.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import dev.vsm.testing.HostTools;
import dev.vsm.testing.RootTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cluster secret's file: made 0600 and whole, read only when it is the caller's alone. */
class SecretFileTest {
    @TempDir
    Path tmp;

    @Test
    void createMakesAnOwnerOnlyFileOnceAndReadGivesItsSecret() throws IOException {
        Path file = tmp.resolve("etc/cluster.secret");
        assertThat(SecretFile.create(file)).isTrue();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rw-------");
        String secret = SecretFile.read(file);
        assertThat(secret).matches("[A-Za-z0-9_-]{43}");
        assertThat(Files.readString(file)).isEqualTo(secret + "\n");
        assertThat(SecretFile.create(file)).isFalse();
        assertThat(SecretFile.read(file)).isEqualTo(secret);
        try (var left = Files.list(file.getParent())) {
            assertThat(left).containsExactly(file); // no temporary file left
        }
        assertThat(SecretFile.digestId(secret)).startsWith("vsm:").doesNotContain(secret);
    }

    @Test
    void aSecretWrittenByHandIsReadWithOrWithoutItsNewline() throws IOException {
        Path file = secret("0123456789abcdef:+/=", "rw-------");
        assertThat(SecretFile.read(file)).isEqualTo("0123456789abcdef:+/=");
        Files.writeString(file, "0123456789abcdef:+/=\n");
        assertThat(SecretFile.read(file)).isEqualTo("0123456789abcdef:+/=");
    }

    @Test
    void anAbsentFileSaysHowToMakeOne() {
        Path file = tmp.resolve("cluster.secret");
        assertRefused(file)
                .hasMessage("cluster secret file '" + file
                        + "' does not exist: run 'vsm cluster init' on one node and copy the file it creates to every"
                        + " node (root's, mode 0600)");
    }

    @Test
    void aLinkIsRefusedEvenToAGoodFile() throws IOException {
        Path good = secret("0123456789abcdefghij", "rw-------");
        Path link = Files.createSymbolicLink(tmp.resolve("link.secret"), good);
        assertRefused(link).hasMessage("cluster secret file '" + link + "' is a symbolic link, not a regular file");
    }

    @Test
    void aFileOthersMayReadOrWriteIsRefused() throws IOException {
        for (String mode : new String[] {"rw-r--r--", "rw----r--", "rw-rw----", "rw--w----"}) {
            Path file = secret("0123456789abcdefghij", mode);
            assertRefused(file)
                    .as(mode)
                    .hasMessageStartingWith("cluster secret file '" + file
                            + "' may be read or written by group or others (owned by uid")
                    .hasMessageEndingWith("): chmod 0600 " + file + ", and make a new secret if others read it");
        }
    }

    @Test
    @RootTest
    void anotherUsersFileIsRefused() throws IOException {
        HostTools.require("gives a file to another user");
        Path file = secret("0123456789abcdefghij", "rw-------");
        Files.setAttribute(file, "unix:uid", 65534);
        assertRefused(file)
                .hasMessage("cluster secret file '" + file
                        + "' is not root's (owned by uid 65534 mode 0600): chown root " + file);
    }

    @Test
    void aFileInADirectoryOthersMayChangeIsRefused() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("open"));
        Path file = Files.writeString(dir.resolve("cluster.secret"), "0123456789abcdefghij\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertRefused(file)
                .hasMessageStartingWith("cluster secret file '" + file + "' is in a directory others may change: '"
                        + dir + "' is writable by group or others");
        assertThatThrownBy(() -> SecretFile.create(dir.resolve("new.secret")))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT))
                .hasMessageContaining("is in a directory others may change");
        assertThat(dir.resolve("new.secret")).doesNotExist();
    }

    @Test
    void anEmptyShortHugeOrMultiLineSecretIsRefused() throws IOException {
        assertRefused(secret("", "rw-------")).hasMessageEndingWith("' is empty");
        assertRefused(secret("\n", "rw-------")).hasMessageEndingWith("' is empty");
        assertRefused(secret("short", "rw-------")).hasMessageEndingWith("' holds a secret shorter than 16 characters");
        assertRefused(secret("0123456789abcdef\nsecond line", "rw-------"))
                .hasMessageEndingWith("' is not one line of printable ASCII characters without spaces");
        assertRefused(secret("0123456789 abcdef", "rw-------"))
                .hasMessageEndingWith("' is not one line of printable ASCII characters without spaces");
        assertRefused(secret("x".repeat(1 << 20), "rw-------")).hasMessageEndingWith("' is longer than 1024 bytes");
    }

    @Test
    void aFifoIsRefusedWithoutBlocking() throws Exception {
        Path fifo = tmp.resolve("fifo.secret");
        Process p = new ProcessBuilder("mkfifo", "-m", "0600", fifo.toString()).start();
        assertThat(p.waitFor()).as("mkfifo").isZero();
        assertRefused(fifo).hasMessage("cluster secret file '" + fifo + "' is a fifo, not a regular file");
    }

    private Path secret(String text, String mode) throws IOException {
        Path file = Files.createTempFile(tmp, "cluster", ".secret");
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }

    private static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertRefused(Path file) {
        return assertThatThrownBy(() -> SecretFile.read(file))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.BAD_INPUT));
    }
}
