package dev.vsm.lock;

import static java.util.Objects.requireNonNull;

import dev.vsm.env.Environment;
import dev.vsm.spi.StorageException;
import dev.vsm.trust.FileTrust;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.Channels;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLockInterruptionException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
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
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Named exclusive locks, each backed by a file {@code <directory>/<name>.lock} locked with
 * {@link FileChannel#tryLock()} (an {@code fcntl} lock on Linux), so that vsm processes on one host
 * exclude each other. This is pve's {@code lock_file}: used as {@code storage-<id>} around
 * changes to one storage and as {@code storage-config} around edits of the configuration file.
 *
 * <ul>
 *   <li>Threads of one JVM exclude each other too (a file lock alone cannot: it belongs to the
 *       process), through one in-process lock per lock file, shared by every {@code FileLocks}.</li>
 *   <li>Re-entrant: a thread that holds a lock and asks for it again just runs the work.</li>
 *   <li>Waiting is bounded ({@link #DEFAULT_TIMEOUT}, pve's 10 s). While waiting,
 *       {@code trying to acquire lock...} is printed once to the progress stream, completed by
 *       {@code  OK} or {@code  failed}; a timeout fails with pve's
 *       {@code can't lock file '<file>' - got timeout}.</li>
 *   <li>Lock files are left in place after use: deleting them would let two processes hold
 *       "the same" lock on two different files.</li>
 * </ul>
 */
public final class FileLocks {
    /** How long to wait for a lock unless told otherwise (pve's default). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    /**
     * How long vsm waits for a lock: {@code $VSM_LOCK_TIMEOUT} seconds when it is a positive whole
     * number, else pve's 10 s. Raise it on a host where many vsm processes start at once on few
     * cores (the tests of 16 parallel edits do, so that a loaded machine cannot fail them).
     */
    public static Duration configuredTimeout(Environment env) {
        return configuredTimeout(env.get("VSM_LOCK_TIMEOUT"));
    }

    static Duration configuredTimeout(String value) {
        if (value != null && value.strip().matches("[1-9][0-9]{0,5}")) {
            return Duration.ofSeconds(Long.parseLong(value.strip()));
        }
        return DEFAULT_TIMEOUT;
    }

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,199}");

    /** One in-process lock per lock file, shared by all instances so that two of them on one directory still exclude. */
    private static final ConcurrentMap<Path, ReentrantLock> IN_PROCESS = new ConcurrentHashMap<>();

    private final Path directory;
    private final PrintStream progress;
    private final Duration timeout;

    /**
     * @param directory where the lock files live; must exist and be writable
     * @param progress  where {@code trying to acquire lock...} goes (pve: stderr)
     */
    public FileLocks(Path directory, PrintStream progress) {
        this(directory, progress, DEFAULT_TIMEOUT);
    }

    /** @param timeout how long the storage and configuration locks are waited for ({@link #configuredTimeout}) */
    public FileLocks(Path directory, PrintStream progress, Duration timeout) {
        this.directory = requireNonNull(directory, "directory").toAbsolutePath().normalize();
        this.progress = requireNonNull(progress, "progress");
        this.timeout = requireNonNull(timeout, "timeout");
    }

    /** How long the storage and configuration locks are waited for. */
    public Duration timeout() {
        return timeout;
    }

    public Path directory() {
        return directory;
    }

    /** The file behind lock {@code name}. */
    public Path file(String name) {
        requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("bad lock name '" + name + "': use letters, digits, '.', '_' and '-'");
        }
        return directory.resolve(name + ".lock");
    }

    /** Runs {@code work} holding lock {@code name}, waiting at most {@link #DEFAULT_TIMEOUT} for it. */
    public <T> T withLock(String name, Supplier<T> work) {
        return withLock(name, DEFAULT_TIMEOUT, work);
    }

    /**
     * Runs {@code work} holding lock {@code name} and returns its result. Exceptions from
     * {@code work} pass through unchanged; the lock is released in every case.
     *
     * @throws StorageException (FAILED) {@code can't lock file '<file>' - got timeout} when the
     *                          lock is not free within {@code timeout}
     */
    public <T> T withLock(String name, Duration timeout, Supplier<T> work) {
        requireNonNull(timeout, "timeout");
        requireNonNull(work, "work");
        Path file = file(name);
        ReentrantLock inProcess = IN_PROCESS.computeIfAbsent(file, f -> new ReentrantLock(true));
        if (inProcess.isHeldByCurrentThread()) {
            return work.get();
        }
        Acquisition acquisition = new Acquisition(file, System.nanoTime() + timeout.toNanos());
        acquisition.lockInProcess(inProcess);
        try {
            FileChannel channel = acquisition.lockFile();
            try {
                acquisition.reportSuccess();
                return work.get();
            } finally {
                closeQuietly(channel);
            }
        } finally {
            inProcess.unlock();
        }
    }

    /** Like {@link #withLock(String, Duration, Supplier)} for work without a result. */
    public void runWithLock(String name, Duration timeout, Runnable work) {
        requireNonNull(work, "work");
        withLock(name, timeout, () -> {
            work.run();
            return null;
        });
    }

    /**
     * Runs {@code work} holding lock {@code name} if it is free right now, without waiting.
     * Re-entrant like {@link #withLock}. Exceptions from {@code work} pass through unchanged.
     *
     * @return false, without running {@code work}, when another thread or process holds the lock
     */
    public boolean tryRunWithLock(String name, Runnable work) {
        requireNonNull(work, "work");
        Path file = file(name);
        ReentrantLock inProcess = IN_PROCESS.computeIfAbsent(file, f -> new ReentrantLock(true));
        if (inProcess.isHeldByCurrentThread()) {
            work.run();
            return true;
        }
        if (!inProcess.tryLock()) {
            return false;
        }
        try {
            FileChannel channel = openLockFile(file);
            try {
                if (channel.tryLock() == null) {
                    return false;
                }
                work.run();
                return true;
            } catch (IOException e) {
                throw StorageException.failed(e, "can't lock file '%s' - %s", file, e.getMessage());
            } finally {
                closeQuietly(channel);
            }
        } finally {
            inProcess.unlock();
        }
    }

    /** Whether the calling thread holds lock {@code name} (through any {@code FileLocks} on this directory). */
    public boolean isHeldByCurrentThread(String name) {
        ReentrantLock lock = IN_PROCESS.get(file(name));
        return lock != null && lock.isHeldByCurrentThread();
    }

    /** One attempt to take a lock: the in-process part, then the file part, sharing one deadline. */
    private final class Acquisition {
        private final Path file;
        private final long deadline;
        private boolean waited;

        Acquisition(Path file, long deadline) {
            this.file = file;
            this.deadline = deadline;
        }

        void lockInProcess(ReentrantLock lock) {
            if (lock.tryLock()) {
                return;
            }
            startWaiting();
            try {
                if (!lock.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    throw timeout();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw interrupted();
            }
        }

        /**
         * Opens the lock file and locks it; the returned channel holds the lock until closed. A lock
         * another process holds is waited for in the kernel ({@link FileChannel#lock()}), which
         * wakes the waiter when the lock is released: a waiter that polled would find the lock
         * free only if it looked in the moment between one holder's release and the next one's
         * taking it, and could wait out its whole timeout behind processes that take the lock
         * again and again. At the deadline the channel is closed, which ends the wait.
         */
        FileChannel lockFile() {
            FileChannel channel = open();
            try {
                if (channel.tryLock() != null) {
                    return channel;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw timeout();
                }
                startWaiting();
                ScheduledFuture<?> alarm =
                        Alarm.TIMER.schedule(() -> closeQuietly(channel), left, TimeUnit.NANOSECONDS);
                try {
                    channel.lock();
                } catch (ClosedByInterruptException | FileLockInterruptionException e) {
                    // the latter is lock()'s when its wait is interrupted
                    alarm.cancel(false);
                    throw interrupted();
                } catch (AsynchronousCloseException e) {
                    throw timeout();
                }
                if (!alarm.cancel(false)) { // the deadline came as the lock was granted: the channel is (being) closed
                    closeQuietly(channel);
                    throw timeout();
                }
                return channel;
            } catch (IOException e) {
                closeQuietly(channel);
                throw StorageException.failed(e, "can't lock file '%s' - %s", file, e.getMessage());
            } catch (RuntimeException e) {
                closeQuietly(channel);
                throw e;
            }
        }

        private FileChannel open() {
            return openLockFile(file);
        }

        private void startWaiting() {
            if (!waited) {
                waited = true;
                progress.print("trying to acquire lock...");
                progress.flush();
            }
        }

        void reportSuccess() {
            if (waited) {
                progress.println(" OK");
            }
        }

        private StorageException timeout() {
            if (waited) {
                progress.println(" failed");
            }
            return StorageException.failed("can't lock file '%s' - got timeout", file);
        }

        private StorageException interrupted() {
            if (waited) {
                progress.println(" failed");
            }
            return StorageException.failed("can't lock file '%s' - interrupted", file);
        }
    }

    /**
     * Opens (creating it, mode 0600) the lock file {@code file}, refusing at once anything that
     * is not a regular file of this process's user: a FIFO would block the open forever (Java
     * has no {@code O_NONBLOCK}), a file of someone else's could be held by them.
     *
     * <p>The directory is opened first and checked through that descriptor (its owner and mode,
     * as {@link LockDirectory} requires); the file is then looked at and opened relative to the
     * same descriptor ({@code fstatat}/{@code openat} with {@code O_NOFOLLOW}), so no rename of the
     * directory or a directory above it can slip another one in between. What is left is the
     * moment between looking at the file and opening it: only a process that may write the
     * directory could replace the file then, and that is this user alone, as just checked. The
     * opened file is looked at once more and must be the one checked.
     */
    static FileChannel openLockFile(Path file) {
        return openOwnFile(file, true);
    }

    /**
     * Reads a file vsm keeps beside its lock files (the cluster configuration cache) by the same
     * rule as {@link #openLockFile}: it must be a regular file of this process's user that no
     * one else may write, in a directory that passes the lock directory's checks.
     *
     * @return empty when the file does not exist
     * @throws StorageException (FAILED) when the file or its directory is refused or cannot be read
     */
    public static Optional<byte[]> readOwnFile(Path file) {
        FileChannel channel;
        try {
            channel = openOwnFile(file, false);
        } catch (StorageException e) {
            if (e.getCause() instanceof NoSuchFileException) {
                return Optional.empty();
            }
            throw e;
        }
        try (InputStream in = Channels.newInputStream(channel)) {
            return Optional.of(in.readAllBytes());
        } catch (IOException e) {
            throw StorageException.failed(e, "can't read file '%s' - %s", file, e.getMessage());
        }
    }

    /** {@link #openLockFile} ({@code create}: for writing, made if missing) or {@link #readOwnFile} (for reading). */
    private static FileChannel openOwnFile(Path file, boolean create) {
        Path dir = file.getParent();
        Path name = file.getFileName();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            if (!(stream instanceof SecureDirectoryStream<Path> sds)) {
                throw StorageException.failed(
                        "can't open file '%s' - this system cannot open files relative to a directory", file);
            }
            UserPrincipal me = FileTrust.callerPrincipal();
            PosixFileAttributes dirAttributes =
                    sds.getFileAttributeView(PosixFileAttributeView.class).readAttributes();
            if (!dirAttributes.owner().equals(me) || othersMayWrite(dirAttributes.permissions())) {
                throw LockDirectory.refused(FileTrust.lstat(dir), me.getName(), true);
            }
            PosixFileAttributeView entry =
                    sds.getFileAttributeView(name, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
            Object checked = null;
            try {
                PosixFileAttributes before = entry.readAttributes();
                requireOwnRegularFile(file, before, me, create);
                if (!create && othersMayWrite(before.permissions())) {
                    FileTrust.Stat stat = FileTrust.lstat(file);
                    throw StorageException.failed(
                            "file '%s' is %s, writable by others: remove it (rm %s) and run vsm again",
                            file, stat.describe(), file);
                }
                if (create && !before.permissions().equals(OWNER_ONLY)) {
                    entry.setPermissions(
                            OWNER_ONLY); // made 0644 by an older vsm: another user could open it and hold a lock
                }
                checked = before.fileKey();
            } catch (NoSuchFileException absent) {
                if (!create) {
                    throw absent;
                }
            }
            Set<OpenOption> options = create
                    ? Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)
                    : Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
            SeekableByteChannel opened =
                    sds.newByteChannel(name, options, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            if (!(opened instanceof FileChannel channel)) {
                opened.close();
                throw StorageException.failed("can't open file '%s' - not a file channel", file);
            }
            try {
                PosixFileAttributes after = entry.readAttributes();
                requireOwnRegularFile(file, after, me, create);
                if (checked != null && !checked.equals(after.fileKey())) {
                    throw StorageException.failed("can't open file '%s' - it was replaced while vsm opened it", file);
                }
                return channel;
            } catch (IOException | RuntimeException e) {
                closeQuietly(channel);
                throw e;
            }
        } catch (IOException e) {
            throw StorageException.failed(e, "can't open file '%s' - %s", file, e.getMessage());
        }
    }

    private static void requireOwnRegularFile(Path file, PosixFileAttributes attributes, UserPrincipal me, boolean lock)
            throws IOException {
        if (!attributes.isRegularFile() || !attributes.owner().equals(me)) {
            FileTrust.Stat stat = FileTrust.lstat(file);
            throw StorageException.failed(
                    "%s '%s' is a %s (%s), not a regular file of %s's: remove it (rm %s) and run vsm again",
                    lock ? "lock file" : "file", file, stat.kind(), stat.describe(), me.getName(), file);
        }
    }

    private static boolean othersMayWrite(Set<PosixFilePermission> permissions) {
        return permissions.contains(PosixFilePermission.GROUP_WRITE)
                || permissions.contains(PosixFilePermission.OTHERS_WRITE);
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing releases the lock even when it reports an error; nothing more to do
        }
    }

    /** The thread that ends lock waits at their deadline: made on the first wait (most commands never wait). */
    private static final class Alarm {
        static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "vsm-lock-timeout");
            thread.setDaemon(true);
            return thread;
        });
    }
}
