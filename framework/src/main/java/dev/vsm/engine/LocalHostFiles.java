package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.env.TestPause;
import dev.vsm.exec.ShellQuote;
import dev.vsm.files.PartialImages;
import dev.vsm.files.StorageTree;
import dev.vsm.spi.Console;
import dev.vsm.spi.HeldFile;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@link HostFiles} on the local file system; under dry-run each change is printed as a
 * {@code + } shell line.
 *
 * <p>A move or a chmod (what makes a volume appear under its name, or a base) first runs
 * {@code beforeChange}, which throws when the storage lock was lost meanwhile, and so does the
 * removal of a volume ({@link #deleteIdentified}). The other removals do not: they remove the
 * command's own temporary files. Since a lock can expire between that check and the change (a
 * paused process), the changes that could destroy another node's work are conditional on what
 * the operation saw: {@link #move} never replaces, {@link #deleteIdentified} removes only the
 * file it was given the identity of.
 *
 * <p>Every change is made relative to the directory that holds the name, opened first
 * ({@link Entry}): {@link #within} a storage's directory that directory is reached from the
 * storage's by descriptor ({@link StorageTree}: a link a writer of the storage swaps in above the
 * last name, {@code images/100 -> /elsewhere}, is refused, never followed); elsewhere it is opened
 * by its path. The name is then reached as {@code /proc/<pid>/fd/<n>/<name>}, the directory's
 * descriptor followed by the kernel and only the last name looked up there, so {@code link(2)},
 * {@code rename(2)}, {@code mkdir(2)} and {@code unlink(2)} act in the directory vsm holds.
 */
final class LocalHostFiles implements HostFiles {
    private static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwxr-x---");
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-r-----");
    private static final Set<PosixFilePermission> REPLACED_MODE = PosixFilePermissions.fromString("rw-r--r--");
    private static final Set<PosixFilePermission> READ_ONLY_MODE = PosixFilePermissions.fromString("r--r-----");
    /** coreutils' ln, by an absolute path: never one the environment's PATH chose. */
    private static final String LN = Files.isExecutable(Path.of("/usr/bin/ln")) ? "/usr/bin/ln" : "/bin/ln";

    private final boolean dryRun;
    private final Console console;
    private final Runnable beforeChange;
    private final Supplier<String> node;
    /** The storage whose files these are, reached by descriptor; null: paths as given. */
    private final StorageTree tree;

    public LocalHostFiles(boolean dryRun, Console console) {
        this(dryRun, console, () -> {}, () -> "localhost");
    }

    /**
     * @param beforeChange throws when the storage lock was lost
     * @param node         this node's name, which a tombstone carries (a shared storage is seen by other nodes)
     */
    public LocalHostFiles(boolean dryRun, Console console, Runnable beforeChange, Supplier<String> node) {
        this(dryRun, console, beforeChange, node, null);
    }

    private LocalHostFiles(
            boolean dryRun, Console console, Runnable beforeChange, Supplier<String> node, StorageTree tree) {
        this.dryRun = dryRun;
        this.console = requireNonNull(console, "console");
        this.beforeChange = requireNonNull(beforeChange, "beforeChange");
        this.node = requireNonNull(node, "node");
        this.tree = tree;
    }

    @Override
    public HostFiles within(Path base) {
        return new LocalHostFiles(dryRun, console, beforeChange, node, new StorageTree(base));
    }

    /**
     * A name in its directory, held open until closed; {@link #at} is the path through which the
     * directory's descriptor reaches the name.
     */
    private static final class Entry implements AutoCloseable {
        private final StorageTree.Dir dir;
        private final String name;
        private final Path at;

        private Entry(StorageTree.Dir dir, String name) throws IOException {
            this.dir = dir;
            this.name = name;
            this.at = dir.held().path().resolve(name);
        }

        @Override
        public void close() throws IOException {
            dir.close();
        }
    }

    /**
     * The directory of {@code path}, opened from the storage's by descriptor when {@code path} is
     * below it, else by its path; bad input when the way leads out of the storage.
     */
    private Entry entry(Path path) throws IOException {
        Path absolute = path.toAbsolutePath().normalize();
        Path parent = absolute.getParent();
        Path name = absolute.getFileName();
        if (parent == null || name == null) {
            throw new IOException("'" + path + "' names no entry of a directory");
        }
        StorageTree.Dir dir =
                tree != null && tree.contains(absolute) ? tree.open(parent) : new StorageTree(parent).open(parent);
        try {
            return new Entry(dir, name.toString());
        } catch (IOException | RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    /**
     * Each missing directory is made with {@code mkdir(2)} in its parent, itself reached by
     * descriptor from the deepest directory that exists ({@link StorageTree}): below the storage's
     * directory from the storage's, else (the storage's directory itself, or a path outside it)
     * from the deepest existing directory on the path, opened by its path as the configuration's.
     * So a directory vsm made and a writer swapped for a link meanwhile is refused, never entered,
     * and one that stands below the storage's directory as a link out is refused at once (bad
     * input), even when nothing is to be made.
     */
    @Override
    public void createDirectories(Path dir) {
        Path absolute = dir.toAbsolutePath().normalize();
        boolean inside = tree != null && tree.contains(absolute);
        try {
            if (inside ? exists(tree, absolute) : Files.isDirectory(absolute)) {
                return;
            }
            if (dryRun) {
                console.info("+ mkdir -p " + ShellQuote.quote(dir.toString()));
                return;
            }
            Path top = inside ? tree.base() : absolute;
            if (!Files.isDirectory(top)) {
                Path existing = top;
                while (existing.getParent() != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
                    existing = existing.getParent();
                }
                makeDirectories(new StorageTree(existing), top);
            }
            if (inside) {
                makeDirectories(tree, absolute);
            }
        } catch (IOException e) {
            throw StorageException.failed(e, "unable to create directory '%s' - %s", dir, reason(e));
        }
    }

    private static boolean exists(StorageTree from, Path dir) throws IOException {
        Optional<StorageTree.Dir> there = from.openIfExists(dir);
        if (there.isPresent()) {
            there.get().close();
        }
        return there.isPresent();
    }

    /** Makes the directories from {@code from}'s base down to {@code dir}, each in its parent held by descriptor. */
    private static void makeDirectories(StorageTree from, Path dir) throws IOException {
        Path relative = from.base().relativize(dir);
        for (int i = 1; i <= relative.getNameCount(); i++) {
            Path step = from.base().resolve(relative.subpath(0, i));
            if (exists(from, step)) {
                continue;
            }
            TestPause.before("mkdir"); // a test swaps the directory made before for a link here
            try (StorageTree.Dir parent = from.open(step.getParent())) {
                Files.createDirectory(
                        parent.held().path().resolve(step.getFileName().toString()),
                        PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
            } catch (FileAlreadyExistsException e) {
                // made meanwhile, or not a directory: the walk below tells
            }
        }
        from.open(dir).close();
    }

    @Override
    public void createFile(Path file) {
        if (dryRun) {
            return;
        }
        try (Entry entry = entry(file)) {
            Files.newByteChannel(
                            entry.at,
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
        TestPause.before("unlink");
        try (Entry entry = entry(file)) {
            Files.delete(entry.at);
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
        try (Entry entry = entry(dir)) {
            // rmdir: a link or a file under the name stays
            return Files.isDirectory(entry.at, LinkOption.NOFOLLOW_LINKS) && Files.deleteIfExists(entry.at);
        } catch (DirectoryNotEmptyException e) {
            return false;
        } catch (IOException | RuntimeException e) {
            return false; // never fails: a link out of the storage on the way, too, is left
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
        try (Entry entry = entry(file)) {
            SecureDirectoryStream<Path> held = entry.dir.stream();
            try {
                deleteIfExists(held, temp);
                try (HeldFile out = HeldFile.of(held.newByteChannel(
                        temp,
                        Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                        PosixFilePermissions.asFileAttribute(REPLACED_MODE)))) {
                    TestPause.before("replace"); // a test widens the window between the create and the chmod here
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
                    held.move(temp, held, name); // renameat: replaces a link at the name, never follows it
                    Object named = held.getFileAttributeView(
                                    name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                            .readAttributes()
                            .fileKey();
                    if (!created.equals(named)) {
                        // Linux renames names, never a descriptor: a writer of the directory swapped the
                        // temporary name in the moment before; what it put there is its own entry, which
                        // vsm never follows. Report it, and leave it.
                        throw new IOException("its temporary file was replaced just before its rename, by a writer of '"
                                + dir + "': '" + name + "' now holds that writer's entry");
                    }
                }
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

    /**
     * A no-replace rename. {@code Files.move} without {@code REPLACE_EXISTING} is not one: on
     * Linux it looks whether the target exists and then calls {@code rename(2)}, which replaces
     * whatever came under the name in between. So a regular file (or link) gets its new name with
     * {@code link(2)}, which fails when the name exists, and loses its old one through
     * {@link #removeIdentified} (the old name may have been taken by another file meanwhile); a
     * directory is renamed over an empty directory made for it just before with {@code mkdir(2)}
     * (which fails when the name exists; {@code rename(2)} replaces an empty directory, never a
     * non-empty one or a file).
     */
    @Override
    public void move(Path from, Path to) {
        if (dryRun) {
            console.info("+ mv -n " + ShellQuote.quote(from.toString()) + " " + ShellQuote.quote(to.toString()));
            return;
        }
        beforeChange.run();
        TestPause.before("move");
        try (Entry source = entry(from);
                Entry target = entry(to)) {
            if (Files.isDirectory(source.at, LinkOption.NOFOLLOW_LINKS)) {
                moveDirectory(source.at, target.at);
            } else {
                Files.createLink(target.at, source.at);
                TestPause.before("moved");
                removeIdentified(from, source, identity(target.at));
            }
        } catch (FileAlreadyExistsException e) {
            throw StorageException.failed("rename '%s' to '%s' failed - target exists", from, to);
        } catch (IOException e) {
            throw StorageException.failed(e, "rename '%s' to '%s' failed - %s", from, to, reason(e));
        }
    }

    /**
     * {@code ln -L -T -- /proc/<pid>/fd/<file> /proc/<pid>/fd/<dir>/<name>}: {@code ln -L} is
     * {@code linkat(..., AT_SYMLINK_FOLLOW)}, which follows the descriptor's magic link to the open
     * file itself (Java's {@code Files.createLink} is {@code link(2)}, which does not follow, and
     * links only the name); the new name is looked up in the directory held open, and without
     * {@code -f} nothing is replaced ({@code EEXIST}). A child process, since Java has no
     * {@code linkat}: about a millisecond.
     */
    @Override
    public void link(HeldFile file, HeldFile dir, String name, Path shown) {
        requireNonNull(file, "file");
        requireNonNull(dir, "dir");
        if (name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("not a file name: " + name);
        }
        if (dryRun) {
            console.info("+ ln -T " + ShellQuote.quote(file.toString()) + " " + ShellQuote.quote(shown.toString()));
            return;
        }
        beforeChange.run();
        TestPause.before("move");
        ProcessBuilder ln = new ProcessBuilder(LN, "-L", "-T", "--", file.path().toString(), dir.path() + "/" + name)
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        ln.environment().put("LC_ALL", "C"); // its message is matched below
        String out;
        int exit;
        try {
            Process p = ln.start();
            out = new String(p.getInputStream().readNBytes(4096), java.nio.charset.StandardCharsets.UTF_8).strip();
            exit = p.waitFor();
        } catch (IOException e) {
            throw StorageException.failed(e, "link to '%s' failed - %s", shown, reason(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw StorageException.failed(e, "link to '%s' failed - interrupted", shown);
        }
        if (exit != 0) {
            if (out.endsWith("File exists")) {
                throw StorageException.failed("link to '%s' failed - target exists", shown);
            }
            if (out.endsWith("No such file or directory")) {
                // linkat refuses a file with no name left: a writer of the directory replaced or removed its temporary
                // name
                throw StorageException.failed(
                        "link to '%s' failed - the file vsm made lost its temporary name meanwhile "
                                + "(replaced or removed by a writer of the directory)",
                        shown);
            }
            throw StorageException.failed("link to '%s' failed - %s", shown, out.isEmpty() ? "ln exit " + exit : out);
        }
    }

    private static void moveDirectory(Path from, Path to) throws IOException {
        Files.createDirectory(to, PosixFilePermissions.asFileAttribute(DIRECTORY_MODE));
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            Files.deleteIfExists(to);
            throw e;
        }
    }

    @Override
    public void deleteIdentified(Path file, BasicFileAttributes seen) {
        requireNonNull(seen, "seen");
        if (dryRun) {
            if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
                deleteTree(file);
            } else {
                delete(file);
            }
            return;
        }
        beforeChange.run();
        TestPause.before("remove");
        try (Entry entry = entry(file)) {
            removeIdentified(file, entry, identity(seen));
        } catch (IOException e) {
            throw StorageException.failed(e, "unlink '%s' failed - %s", file, reason(e));
        }
    }

    /**
     * Removes {@code file} if it is the file {@code identity} names, else fails and leaves it.
     *
     * <p>Why by a tombstone: checking the name's inode and then unlinking the name would remove
     * whatever came under the name between the two steps (another node that got the cluster lock
     * after this process's session expired may free and allocate the same name). So the name is
     * first renamed ({@code rename(2)}, atomic) to a fresh private name in the same directory:
     * from then on that name holds exactly the file that was under the volume's name at that
     * instant, and nobody else knows the name, so what is checked is what is removed. When it is
     * another file, it is put back under its name without replacing anything ({@code link(2)} or
     * {@code mkdir(2)} and rename, as {@link #move}) and the removal fails. The cost: another file
     * is out of its name for the two renames; a lookup then fails and a creation of that name
     * succeeds, after which the put-back refuses and says where the file was kept. A crash between
     * the rename and the removal leaves the tombstone {@code .<name>.vsm-del-<node>-<pid>.<start>-<random>},
     * which no listing shows as a volume and {@code vsm cleanup} removes once its process is gone
     * ({@link PartialImages#tombstoneFor}).
     */
    private void removeIdentified(Path file, Entry entry, List<Object> identity) throws IOException {
        Path at = entry.at;
        Path tombstone = PartialImages.tombstoneFor(node.get(), at);
        Files.move(at, tombstone, StandardCopyOption.ATOMIC_MOVE);
        if (!identity.equals(identity(tombstone))) {
            boolean directory = Files.isDirectory(tombstone, LinkOption.NOFOLLOW_LINKS);
            try {
                if (directory) {
                    moveDirectory(tombstone, at);
                } else {
                    Files.createLink(at, tombstone);
                    Files.delete(tombstone);
                }
            } catch (IOException e) {
                throw StorageException.failed(
                        "'%s' is no longer the file this command found (replaced meanwhile by another node or "
                                + "process?): not removed, and kept as '%s' since its name could not be given back - %s",
                        file, file.resolveSibling(tombstone.getFileName()), reason(e));
            }
            throw StorageException.failed(
                    "'%s' is no longer the file this command found (replaced meanwhile by another node or process?): "
                            + "left it alone",
                    file);
        }
        TestPause.before("tombstoned"); // a test kills vsm here: the tombstone is left for vsm cleanup
        entry.dir.deleteTree(tombstone.getFileName().toString()); // a directory's tree by descriptor, too
    }

    /**
     * What tells one file from another: device and inode, and the birth time, since a file made
     * after another was removed often gets its inode ({@code creationTime}; where the file system
     * keeps no birth time Java reports the modification time, so a write in between makes a
     * removal refuse, never remove another file).
     */
    private static List<Object> identity(BasicFileAttributes attributes) {
        return List.of(attributes.fileKey(), attributes.creationTime());
    }

    private static List<Object> identity(Path file) throws IOException {
        return identity(Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * Below the storage's directory the file or directory is opened from the directory that holds
     * it, by descriptor: a regular file as {@link StorageTree.Dir#openRegular} opens it, a
     * directory (or a link to one inside the storage) as {@link StorageTree#open} does; a link out
     * of the storage, a FIFO or a device is refused, never opened.
     */
    @Override
    public void sync(Path path) {
        if (dryRun) {
            return;
        }
        try {
            if (tree == null || !tree.contains(path)) {
                try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
                    channel.force(true);
                }
                return;
            }
            try (Entry entry = entry(path)) {
                Optional<java.nio.file.attribute.PosixFileAttributes> seen = entry.dir.stat(entry.name);
                if (seen.isPresent() && (seen.get().isDirectory() || seen.get().isSymbolicLink())) {
                    try (StorageTree.Dir dir = tree.open(path)) {
                        dir.held().channel().force(true);
                    }
                } else {
                    try (HeldFile file = entry.dir.openRegular(entry.name)) {
                        file.channel().force(true);
                    }
                }
            }
        } catch (IOException e) {
            throw StorageException.failed(e, "fsync '%s' failed - %s", path, reason(e));
        }
    }

    /**
     * {@code rm -rf} by descriptor ({@link StorageTree.Dir#deleteTree}): the tree is entered from
     * the directory that holds it, one directory at a time without following links, and each
     * entry is removed in the directory held; under dry-run one {@code + rm -rf} line.
     */
    @Override
    public void deleteTree(Path dir) {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (dryRun) {
            console.info("+ rm -rf " + ShellQuote.quote(dir.toString()));
            return;
        }
        try (Entry entry = entry(dir)) {
            entry.dir.deleteTree(entry.name);
        } catch (IOException e) {
            throw StorageException.failed(e, "unable to remove '%s' - %s", dir, reason(e));
        }
    }

    @Override
    public void makeReadOnly(Path file) {
        if (dryRun) {
            console.info("+ chmod 0440 " + ShellQuote.quote(file.toString()));
            return;
        }
        beforeChange.run();
        if (HeldFile.isHeld(file)) { // a file this process holds open: its descriptor's path reaches it
            try {
                Files.setPosixFilePermissions(file, READ_ONLY_MODE);
            } catch (IOException e) {
                throw StorageException.failed(e, "chmod '%s' failed - %s", file, reason(e));
            }
            return;
        }
        try (Entry entry = entry(file);
                HeldFile opened = entry.dir.openRegular(entry.name)) {
            opened.setPermissions(READ_ONLY_MODE); // the file opened without following a link, never a name
        } catch (IOException e) {
            throw StorageException.failed(e, "chmod '%s' failed - %s", file, reason(e));
        }
    }

    /** The error as pve prints {@code $!}: without the path, which may be a descriptor's. */
    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "Permission denied";
        }
        if (e instanceof DirectoryNotEmptyException) {
            return "Directory not empty";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "File exists";
        }
        if (e instanceof java.nio.file.NotDirectoryException) {
            return "Not a directory";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
