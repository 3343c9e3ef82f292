package dev.vsm.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.HeldFile;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The descriptor-based access to a storage's files: each test swaps a name for a link at the
 * moment a check-then-reopen-by-name would have followed it, and shows that what is read, written
 * or chmodded is the file vsm opened.
 */
class StorageTreeTest {
    @TempDir
    Path root;

    private Path base;
    private Path outside;
    private Path secret;
    private StorageTree tree;

    @BeforeEach
    void setUp() throws IOException {
        base = Files.createDirectories(root.resolve("store"));
        outside = Files.createDirectories(root.resolve("outside"));
        secret = Files.writeString(outside.resolve("secret"), "SECRET\n");
        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
        Files.createDirectories(base.resolve("disks/100"));
        tree = new StorageTree(base);
    }

    /** Replaces {@code name} with a link to the secret, as a writer of the directory can at any moment. */
    private void swapForLink(Path name) throws IOException {
        Path link = name.resolveSibling(".link");
        Files.createSymbolicLink(link, secret);
        Files.move(link, name, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Test
    void aDirectoryLinkThatStaysInsideIsFollowedOneThatLeadsOutIsRefused() throws IOException {
        Files.createSymbolicLink(base.resolve("images"), Path.of("disks"));
        Files.createSymbolicLink(base.resolve("abs"), base.resolve("disks"));
        try (StorageTree.Dir dir = tree.open(base.resolve("images/100"))) {
            dir.create("x").close();
        }
        try (StorageTree.Dir dir = tree.open(base.resolve("abs/100"))) {
            assertThat(dir.stat("x")).isPresent();
        }
        assertThat(base.resolve("disks/100/x")).exists();

        Files.createSymbolicLink(base.resolve("dump"), outside);
        Files.createSymbolicLink(base.resolve("up"), Path.of("disks/../.."));
        Files.createSymbolicLink(base.resolve("gone"), Path.of("nowhere"));
        for (String way : new String[] {"dump", "up/outside"}) {
            assertThatThrownBy(() -> tree.open(base.resolve(way)))
                    .isInstanceOf(StorageException.class)
                    .hasMessageContaining("does not follow symbolic links out of a storage");
        }
        assertThatThrownBy(() -> tree.open(base.resolve("gone"))).isInstanceOf(IOException.class);
    }

    @Test
    void aLinkAFifoOrADirectoryIsNoRegularFileAndTheFifoDoesNotBlock() throws Exception {
        Path dir = base.resolve("disks/100");
        Files.createSymbolicLink(dir.resolve("link"), secret);
        Files.createDirectory(dir.resolve("sub"));
        Process mkfifo = new ProcessBuilder("mkfifo", dir.resolve("fifo").toString()).start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0)
                .isTrue();
        try (StorageTree.Dir d = tree.open(dir)) {
            for (String name : new String[] {"link", "fifo", "sub"}) {
                assertThatThrownBy(() -> d.openRegular(name))
                        .isInstanceOf(StorageException.class)
                        .hasMessageContaining("is not a regular file");
            }
        }
    }

    @Test
    void whatIsReadIsTheFileOpenedNotTheNameSwappedAfterTheCheck() throws IOException {
        Path ova = Files.writeString(base.resolve("disks/100/a.ova"), "the archive\n");
        try (StorageTree.Dir dir = tree.open(ova.getParent());
                HeldFile file = dir.openRegular("a.ova")) {
            swapForLink(ova);
            ByteBuffer buffer = ByteBuffer.allocate(64);
            file.channel().read(buffer, 0);
            assertThat(new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8))
                    .isEqualTo("the archive\n");
            assertThat(Files.readString(file.path()))
                    .as("a tool given the held path")
                    .isEqualTo("the archive\n");
        }
    }

    @Test
    void whatIsWrittenAndChmoddedIsTheFileCreatedNotTheNameSwappedMeanwhile() throws IOException {
        Path temp = base.resolve("disks/100/.x.vsm-tmp");
        tree.make(temp, path -> {
                    try {
                        swapForLink(temp); // after the safe creation, before the writer opens: the hole that was
                        Files.writeString(path, "stream data"); // what the writer (or qemu-img) is given
                        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-r--r--"));
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                })
                .close();
        assertThat(Files.readString(secret)).isEqualTo("SECRET\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)))
                .isEqualTo("rw-------");
        assertThat(Files.isSymbolicLink(temp)).isTrue();
    }

    @Test
    void aFailedFillRemovesTheFileCreatedButNoEntrySomeoneElsePutThere() throws IOException {
        Path temp = base.resolve("disks/100/.y.vsm-tmp");
        assertThatThrownBy(() -> tree.make(temp, path -> {
                    throw new IllegalStateException("qemu-img failed");
                }))
                .hasMessage("qemu-img failed");
        assertThat(temp).doesNotExist();
        assertThatThrownBy(() -> tree.make(temp, path -> {
                    try {
                        swapForLink(temp);
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                    throw new IllegalStateException("qemu-img failed");
                }))
                .hasMessage("qemu-img failed");
        assertThat(Files.isSymbolicLink(temp)).as("not ours: left").isTrue();
        assertThat(secret).exists();
    }

    @Test
    void notesAreReadByDescriptorAndBounded() throws IOException {
        DirLayout layout = new DirLayout(base, Map.of());
        Path dump = Files.createDirectories(base.resolve("dump"));
        Path archive = dump.resolve("vzdump-qemu-100-2020_01_09-10_00_00.vma.zst");
        Files.writeString(archive, "");
        try (RandomAccessFile sparse =
                new RandomAccessFile(Path.of(archive + ".notes").toFile(), "rw")) {
            sparse.setLength(3L << 30); // 3 GiB, no block of it written
        }
        assertThat(BackupAttributes.readNotes(layout, archive))
                .get()
                .satisfies(bytes -> assertThat(bytes.length).isEqualTo(BackupAttributes.MAX_NOTES_BYTES));
        Files.delete(Path.of(archive + ".notes"));
        Files.createSymbolicLink(Path.of(archive + ".notes"), secret);
        assertThat(BackupAttributes.readNotes(layout, archive)).isEmpty();
    }

    /** A tree removed by descriptor: links in it (to a directory or a file outside) are removed, never followed. */
    @Test
    void aTreeIsRemovedByDescriptorItsLinksRemovedNotFollowed() throws IOException {
        Path subvol = Files.createDirectories(base.resolve("disks/100/subvol/etc/deep"));
        Files.writeString(subvol.resolve("file"), "mine");
        Files.createSymbolicLink(subvol.resolve("out"), outside);
        Files.createSymbolicLink(subvol.resolve("secret"), secret);
        Files.createSymbolicLink(base.resolve("disks/100/subvol/etc/up"), Path.of("../../.."));
        try (StorageTree.Dir dir = tree.open(base.resolve("disks/100"))) {
            dir.deleteTree("subvol");
            dir.deleteTree("subvol"); // gone: nothing happens
        }
        assertThat(base.resolve("disks/100/subvol")).doesNotExist();
        assertThat(base.resolve("disks/100")).isDirectory();
        assertThat(Files.readString(secret)).isEqualTo("SECRET\n");
        try (var entries = Files.list(outside)) {
            assertThat(entries).containsExactly(secret);
        }
    }
}
