package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.exec.ShellQuote;
import dev.vsm.spi.Console;
import dev.vsm.spi.HeldFile;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * {@link HostFiles} on the local file system; under dry-run each change is printed as a
 * {@code + } shell line.
 *
 * <p>A move or a chmod (what makes a volume appear under its name, or a base) first runs
 * {@code beforeChange}, which throws when the storage lock was lost meanwhile. Removals do not:
 * they remove what the command was asked to remove, or the command's own temporary files.
 */
final class LocalHostFiles implements HostFiles {
    private static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwxr-x---");
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-r-----");
    private static final Set<PosixFilePermission> REPLACED_MODE = PosixFilePermissions.fromString("rw-r--r--");
    private static final Set<PosixFilePermission> READ_ONLY_MODE = PosixFilePermissions.fromString("r--r-----");

    private final boolean dryRun;
    private final Console console;
    private final Runnable beforeChange;

    public LocalHostFiles(boolean dryRun, Console console) {
        this(dryRun, console, () -> {});
    }

    public LocalHostFiles(boolean dryRun, Console console, Runnable beforeChange) {
        this.dryRun = dryRun;
        this.console = requireNonNull(console, "console");
        this.beforeChange = requireNonNull(beforeChange, "beforeChange");
    }

    @Override
    public void createDirectories(Path dir) {
        if (Files.isDirectory(dir)) {
            return;
        }
        if (dryRun) {
            console.info("+ mkdir -p " + ShellQuote.quote(dir.toString()));
            return;
        }
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
        } catch (IOException e) {
            throw StorageException.failed(e, "unable to create directory '%s' - %s", dir, reason(e));
        }
    }

    @Override
    public void createFile(Path file) {
        if (dryRun) {
            return;
        }
        try {
            Files.newByteChannel(
                            file,
                            Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                            PosixFilePermissions.asFileAttribute(FILE_MODE))
                    .close();
        } catch (IOException e) {
            throw StorageException.failed(e, "unable to create file '%s' - %s", file, reason(e));
        }
    }

    @Override
    public void delete(Path file) {
        if (dryRun) {
            console.info("+ rm -f " + ShellQuote.quote(file.toString()));
            return;
        }
        try {
            Files.delete(file);
        } catch (IOException e) {
            throw StorageException.failed(e, "unlink '%s' failed - %s", file, reason(e));
        }
    }

    @Override
    public boolean deleteIfEmpty(Path dir) {
        if (dryRun) {
            console.info("+ rmdir --ignore-fail-on-non-empty " + ShellQuote.quote(dir.toString()));
            return false;
        }
        try {
            return Files.deleteIfExists(dir);
        } catch (DirectoryNotEmptyException e) {
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The temporary file is created, its mode set and its data written through one descriptor
     * ({@link HeldFile}), in the directory held open by its descriptor, and renamed within that
     * directory: a name swapped in meanwhile by whoever may write into the directory is never
     * followed (its mode, too, is changed only on the file created).
     */
    @Override
    public void replaceFile(Path file, byte[] contents) {
        if (dryRun) {
            console.info("+ write " + ShellQuote.quote(file.toString()));
            return;
        }
        beforeChange.run();
        Path dir = file.toAbsolutePath().getParent();
        Path name = file.getFileName();
        Path temp = Path.of("." + name + ".tmp-" + ProcessHandle.current().pid());
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            if (!(stream instanceof SecureDirectoryStream<Path> held)) {
                throw new IOException("the file system offers no directory descriptors");
            }
            try {
                deleteIfExists(held, temp);
                try (HeldFile out = HeldFile.of(held.newByteChannel(
                        temp,
                        Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                        PosixFilePermissions.asFileAttribute(REPLACED_MODE)))) {
                    out.setPermissions(REPLACED_MODE); // whatever the umask: by descriptor, never by name
                    ByteBuffer buffer = ByteBuffer.wrap(contents);
                    while (buffer.hasRemaining()) {
                        out.channel().write(buffer);
                    }
                    out.channel().force(true);
                    Object created = out.attributes().fileKey();
                    Object there = held.getFileAttributeView(
                                    temp, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                            .readAttributes()
                            .fileKey();
                    if (!created.equals(there)) {
                        throw new IOException("its temporary file was replaced meanwhile");
                    }
                }
                held.move(temp, held, name); // renameat: replaces a link at the name, never follows it
            } catch (IOException e) {
                deleteIfExists(held, temp);
                throw e;
            }
        } catch (IOException e) {
            throw StorageException.failed(e, "unable to write '%s' - %s", file, reason(e));
        }
        sync(dir);
    }

    private static void deleteIfExists(SecureDirectoryStream<Path> dir, Path name) {
        try {
            dir.deleteFile(name);
        } catch (IOException e) {
            // none there, or the write failed already: that is the error to report
        }
    }

    @Override
    public void move(Path from, Path to) {
        if (dryRun) {
            console.info("+ mv -n " + ShellQuote.quote(from.toString()) + " " + ShellQuote.quote(to.toString()));
            return;
        }
        beforeChange.run();
        try {
            Files.move(from, to);
        } catch (FileAlreadyExistsException e) {
            throw StorageException.failed("rename '%s' to '%s' failed - target exists", from, to);
        } catch (IOException e) {
            throw StorageException.failed(e, "rename '%s' to '%s' failed - %s", from, to, reason(e));
        }
    }

    @Override
    public void sync(Path path) {
        if (dryRun) {
            return;
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            throw StorageException.failed(e, "fsync '%s' failed - %s", path, reason(e));
        }
    }

    @Override
    public void makeReadOnly(Path file) {
        if (dryRun) {
            console.info("+ chmod 0440 " + ShellQuote.quote(file.toString()));
            return;
        }
        beforeChange.run();
        try {
            Files.setPosixFilePermissions(file, READ_ONLY_MODE);
        } catch (IOException e) {
            throw StorageException.failed(e, "chmod '%s' failed - %s", file, reason(e));
        }
    }

    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "Permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
