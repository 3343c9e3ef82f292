package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.HeldFile;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The files inside a storage, reached by descriptor: a directory below the storage's base is
 * opened from the base one component at a time ({@code openat} with {@code O_NOFOLLOW}, Java's
 * {@link SecureDirectoryStream}), and a file in it is created, opened, checked and removed relative
 * to that directory's descriptor, never by a name a writer of the storage could meanwhile point
 * elsewhere. What was opened is checked by its descriptor ({@link HeldFile#attributes()}), and a
 * tool is handed the descriptor ({@link HeldFile#path()}), not the name.
 *
 * <p>The containment rule is {@link DirLayout#linkOut}'s, applied as the path is walked instead of
 * before: a directory on the way that is a symbolic link is followed only while it stays below the
 * base (its target is walked again from the base's descriptors, so a link swapped in meanwhile
 * can only lead to another place inside); a link out, a dangling one, or a file that is itself a
 * link is refused. The base directory itself may be a link (a storage on another disk): it is the
 * configuration's, trusted as the configuration is.
 */
public final class StorageTree {
    /** pve's and Linux's bound on links followed in one path. */
    private static final int MAX_LINKS = 40;

    private final Path base;

    /** @param base the storage's directory, opened by name (it is the configuration's) */
    public StorageTree(Path base) {
        this.base = requireNonNull(base, "base").toAbsolutePath().normalize();
    }

    /** The storage's directory, absolute and normalized. */
    public Path base() {
        return base;
    }

    /** Whether {@code path} is strictly below the base (what {@link #open} reaches by descriptor). */
    public boolean contains(Path path) {
        Path p = path.toAbsolutePath().normalize();
        return p.startsWith(base) && !p.equals(base);
    }

    /**
     * The directory {@code dir} (the base or a path below it), opened by descriptor. Bad input
     * naming the link when the way leads out of the storage; {@link NoSuchFileException} when a
     * directory on the way does not exist.
     */
    public Dir open(Path dir) throws IOException {
        Path relative = base.relativize(dir.toAbsolutePath().normalize());
        if (relative.startsWith("..")) {
            throw new IllegalArgumentException(dir + " is not below " + base);
        }
        Deque<SecureDirectoryStream<Path>> stack = new ArrayDeque<>();
        Deque<Path> names = new ArrayDeque<>();
        try {
            stack.push(secure(Files.newDirectoryStream(base), base));
            names.push(base);
            Deque<String> todo = new ArrayDeque<>();
            components(relative).forEach(todo::addLast);
            int links = 0;
            while (!todo.isEmpty()) {
                String part = todo.pollFirst();
                if (part.isEmpty() || part.equals(".")) {
                    continue;
                }
                if (part.equals("..")) {
                    if (stack.size() == 1) {
                        throw out(dir, "a link on the way leads above the storage's directory '" + base + "'");
                    }
                    stack.pop().close();
                    names.pop();
                    continue;
                }
                Path name = Path.of(part);
                Path at = names.peek().resolve(part);
                PosixFileAttributes attrs = view(stack.peek(), name).readAttributes();
                if (attrs.isSymbolicLink()) {
                    if (++links > MAX_LINKS) {
                        throw out(dir, "'" + at + "' is a loop of symbolic links");
                    }
                    // the target is read by name, but walked from the base: a swap leads elsewhere inside, never out
                    Path target = Files.readSymbolicLink(at);
                    Deque<String> rest = new ArrayDeque<>(todo);
                    todo.clear();
                    if (target.isAbsolute()) {
                        Path t = target.normalize();
                        Path real = base.toRealPath();
                        Path inside;
                        if (t.startsWith(real)) {
                            inside = real.relativize(t);
                        } else if (t.startsWith(base)) {
                            inside = base.relativize(t);
                        } else {
                            throw out(
                                    dir,
                                    "'" + at + "' is a symbolic link to '" + target
                                            + "', outside the storage's directory '" + real + "'");
                        }
                        while (stack.size() > 1) {
                            stack.pop().close();
                            names.pop();
                        }
                        components(inside).forEach(todo::addLast);
                    } else {
                        components(target).forEach(todo::addLast);
                    }
                    todo.addAll(rest);
                    continue;
                }
                if (!attrs.isDirectory()) {
                    throw new FileSystemException(at.toString(), null, "Not a directory");
                }
                stack.push(stack.peek().newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS));
                names.push(at);
            }
            SecureDirectoryStream<Path> opened = stack.pop();
            return new Dir(dir, opened);
        } finally {
            for (SecureDirectoryStream<Path> s : stack) {
                s.close();
            }
        }
    }

    /** As {@link #open}, empty when a directory on the way does not exist. */
    public Optional<Dir> openIfExists(Path dir) throws IOException {
        try {
            return Optional.of(open(dir));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * Creates {@code file} exclusively (see {@link Dir#create}) and lets {@code fill} write it
     * through the descriptor's path ({@link HeldFile#path()}, which a tool such as qemu-img can be
     * given), then syncs it; the file stays open, to be given its final name by
     * {@link Made#publish}. A name swapped in meanwhile is never written through: what
     * {@code fill} writes is the file created. On failure the file goes (if its name still holds it).
     */
    public Made make(Path file, Consumer<Path> fill) {
        String name = file.getFileName().toString();
        Dir dir = null;
        HeldFile held = null;
        try {
            dir = open(file.getParent());
            held = dir.create(name);
            try {
                fill.accept(held.path());
                held.channel().force(true);
            } catch (RuntimeException e) {
                dir.deleteIfSame(name, held);
                throw e;
            }
            return new Made(dir, held, file);
        } catch (IOException | RuntimeException e) {
            closeQuietly(held);
            closeQuietly(dir);
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw StorageException.failed(e, "unable to create file '%s' - %s", file, e.getMessage());
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            // the error that made us close it is the one to report
        }
    }

    /**
     * A file {@link #make} created and filled under a temporary name, held open with its
     * directory until it is published or closed.
     */
    public static final class Made implements AutoCloseable {
        private final Dir dir;
        private final HeldFile file;
        private final Path temporary;
        private boolean published;

        private Made(Dir dir, HeldFile file, Path temporary) {
            this.dir = dir;
            this.file = file;
            this.temporary = temporary;
        }

        /**
         * Gives the file made its final name {@code target}, beside its temporary one, from the
         * descriptors ({@link HostFiles#link}): never replacing, never a file a writer of the
         * directory put under the temporary name; then the temporary name goes, if it still holds
         * the file.
         */
        public void publish(HostFiles files, Path target) {
            if (!temporary.getParent().equals(target.getParent())) {
                throw new IllegalArgumentException(target + " is not beside " + temporary);
            }
            try {
                files.link(file, dir.held(), target.getFileName().toString(), target);
                published = true;
                dir.deleteIfSame(temporary.getFileName().toString(), file);
            } catch (IOException e) {
                throw StorageException.failed(e, "unable to name '%s' - %s", target, e.getMessage());
            }
        }

        /** Closes the descriptors; the temporary name goes unless the file was published. */
        @Override
        public void close() {
            try {
                if (!published) {
                    dir.deleteIfSame(temporary.getFileName().toString(), file);
                }
            } catch (IOException e) {
                // nothing provably ours to remove: cleanup's business
            } finally {
                closeQuietly(file);
                closeQuietly(dir);
            }
        }
    }

    private static Iterable<String> components(Path p) {
        return java.util.Arrays.asList(p.toString().split("/"));
    }

    private static SecureDirectoryStream<Path> secure(DirectoryStream<Path> stream, Path dir) throws IOException {
        if (stream instanceof SecureDirectoryStream<Path> s) {
            return s;
        }
        stream.close();
        throw new IOException("the file system of '" + dir + "' offers no directory descriptors");
    }

    private static PosixFileAttributeView view(SecureDirectoryStream<Path> dir, Path name) {
        return dir.getFileAttributeView(name, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    }

    private StorageException out(Path dir, String why) {
        return StorageException.badInput(
                "'%s': %s - vsm does not follow symbolic links out of a storage (remove the link)",
                VolumeId.printable(dir.toString()), why);
    }

    /** One directory of the storage, held by its descriptor. */
    public static final class Dir implements AutoCloseable {
        private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-r-----");

        private final Path path;
        private final SecureDirectoryStream<Path> stream;
        private HeldFile self;

        private Dir(Path path, SecureDirectoryStream<Path> stream) {
            this.path = path;
            this.stream = stream;
        }

        /**
         * The directory itself as a {@link HeldFile} ({@code openat(fd, ".")}), whose path reaches
         * this directory, not whatever its name leads to meanwhile; closed with this.
         */
        public HeldFile held() throws IOException {
            if (self == null) {
                self = HeldFile.of(stream.newByteChannel(Path.of("."), Set.of(StandardOpenOption.READ)));
            }
            return self;
        }

        /** The directory's descriptor, for what {@link Dir} does not offer itself ({@code renameat}, {@code unlinkat}). */
        public SecureDirectoryStream<Path> stream() {
            return stream;
        }

        /** The path it was opened as, for messages. */
        public Path path() {
            return path;
        }

        /** {@code fstatat(..., AT_SYMLINK_NOFOLLOW)} of an entry; empty when there is none. */
        public Optional<PosixFileAttributes> stat(String name) throws IOException {
            try {
                return Optional.of(view(stream, Path.of(name)).readAttributes());
            } catch (NoSuchFileException e) {
                return Optional.empty();
            }
        }

        /**
         * Opens the regular file {@code name} for reading: refused (bad input) when it is a link,
         * or anything but a regular file, as seen through the descriptor opened.
         */
        public HeldFile openRegular(String name) throws IOException {
            Optional<PosixFileAttributes> before = stat(name);
            if (before.isEmpty()) {
                throw new NoSuchFileException(path.resolve(name).toString());
            }
            if (!before.get().isRegularFile()) {
                throw notRegular(name); // before opening: a FIFO would block the open
            }
            HeldFile file;
            try {
                file = held(name, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
            } catch (NoSuchFileException e) {
                throw e;
            } catch (IOException e) {
                boolean link = String.valueOf(e.getMessage()).contains("symbolic links"); // ELOOP
                if (link || stat(name).map(a -> !a.isRegularFile()).orElse(false)) {
                    throw notRegular(name); // swapped for a link since the check: O_NOFOLLOW refused it
                }
                throw e;
            }
            try {
                PosixFileAttributes opened = file.attributes();
                if (!opened.isRegularFile()
                        || !opened.fileKey().equals(before.get().fileKey())) {
                    throw notRegular(name);
                }
                return file;
            } catch (IOException | RuntimeException e) {
                file.close();
                throw e;
            }
        }

        /**
         * Creates {@code name} exclusively ({@code O_CREAT|O_EXCL|O_NOFOLLOW}: an entry there, a
         * link included, is an error), mode 0640, open for reading and writing.
         */
        public HeldFile create(String name) throws IOException {
            return held(
                    name,
                    Set.of(
                            StandardOpenOption.CREATE_NEW,
                            StandardOpenOption.READ,
                            StandardOpenOption.WRITE,
                            LinkOption.NOFOLLOW_LINKS));
        }

        private HeldFile held(String name, Set<OpenOption> options) throws IOException {
            checkName(name);
            return HeldFile.of(
                    options.contains(StandardOpenOption.CREATE_NEW)
                            ? stream.newByteChannel(
                                    Path.of(name), options, PosixFilePermissions.asFileAttribute(FILE_MODE))
                            : stream.newByteChannel(Path.of(name), options));
        }

        /**
         * Removes the entry {@code name} if it is still {@code file} (the same inode); an entry
         * someone put there instead is left. Whatever happens, only this directory's entry goes.
         */
        public void deleteIfSame(String name, HeldFile file) throws IOException {
            Optional<PosixFileAttributes> now = stat(name);
            if (now.isPresent() && now.get().fileKey().equals(file.attributes().fileKey())) {
                stream.deleteFile(Path.of(name));
            }
        }

        /** {@code unlinkat} of the entry {@code name} (a link is removed, never followed). */
        public void delete(String name) throws IOException {
            checkName(name);
            stream.deleteFile(Path.of(name));
        }

        /**
         * {@code rm -rf} of the entry {@code name}, by descriptor: a directory is opened from the one
         * that holds it without following links ({@code openat} with {@code O_NOFOLLOW}), emptied the
         * same way and removed ({@code unlinkat}); every other entry, a link included, is unlinked in
         * the directory that holds it, never followed. A directory a writer swaps for a link meanwhile
         * is not entered (the open fails, and so does the removal). Nothing happens when it is gone.
         */
        public void deleteTree(String name) throws IOException {
            checkName(name);
            deleteTree(stream, Path.of(name));
        }

        private static void deleteTree(SecureDirectoryStream<Path> parent, Path name) throws IOException {
            PosixFileAttributes attrs;
            try {
                attrs = view(parent, name).readAttributes();
            } catch (NoSuchFileException e) {
                return;
            }
            if (!attrs.isDirectory()) {
                parent.deleteFile(name);
                return;
            }
            try (SecureDirectoryStream<Path> dir = parent.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                List<Path> entries = new ArrayList<>();
                for (Path entry : dir) {
                    entries.add(entry.getFileName());
                }
                for (Path entry : entries) {
                    deleteTree(dir, entry);
                }
            }
            parent.deleteDirectory(name);
        }

        private StorageException notRegular(String name) {
            return StorageException.badInput(
                    "'%s' is not a regular file (a link, a directory or a device): not using it",
                    VolumeId.printable(path.resolve(name).toString()));
        }

        private static void checkName(String name) {
            if (name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")) {
                throw new IllegalArgumentException("not a file name: " + name);
            }
        }

        @Override
        public void close() throws IOException {
            try {
                if (self != null) {
                    self.close();
                }
            } finally {
                stream.close();
            }
        }
    }
}
