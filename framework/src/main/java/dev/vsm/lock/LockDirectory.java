package dev.vsm.lock;

import static java.util.Objects.requireNonNull;

import dev.vsm.env.Environment;
import dev.vsm.spi.StorageException;
import dev.vsm.trust.FileTrust;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;

/**
 * Where vsm keeps its lock files.
 *
 * <ol>
 *   <li>{@code $VSM_LOCK_DIR} when set;</li>
 *   <li>{@code /run/lock/vsm} when running as root (the system-wide place, shared by every root
 *       process on the host);</li>
 *   <li>otherwise {@code ${XDG_RUNTIME_DIR or java.io.tmpdir}/vsm-<user>}, a private directory
 *       (mode 0700) of the calling user.</li>
 * </ol>
 *
 * <p>The system directory is used only by root. {@code /run/lock} is world-writable (mode 1777)
 * and {@code /run} is new at every boot, so any local user could make {@code /run/lock/vsm}
 * before root does, and plant links, FIFOs or a cluster configuration in it. Whichever of the
 * three is used, the directory vsm makes is mode 0700; an existing one is used only when it
 * belongs to the caller, no one else may write it, it is no symbolic link, and no directory
 * above it may be changed by another user (sticky ones such as {@code /run/lock} excepted).
 * Anything else is refused with the command that removes it. {@link FileLocks} checks the
 * directory again, through its file descriptor, at every lock.
 */
public final class LockDirectory {
    /** The system-wide lock directory, used when running as root. */
    public static final Path SYSTEM = Path.of("/run/lock/vsm");
    /** The environment variable that overrides the lock directory. */
    public static final String ENV = "VSM_LOCK_DIR";

    private LockDirectory() {}

    /** Resolves the lock directory from {@code env} and creates it if needed. */
    public static Path resolve(Environment env) {
        return resolve(env.asMap(), isRoot(), callerName(), Path.of(System.getProperty("java.io.tmpdir")), SYSTEM);
    }

    /** {@code dir} as the lock directory (as if named by {@value #ENV}): created if needed, and checked. */
    public static Path ensure(Path dir) {
        return ensureDirectory(dir.toAbsolutePath().normalize(), callerName(), true);
    }

    /**
     * Resolves the lock directory and creates it if needed.
     *
     * @param env       the environment ({@code VSM_LOCK_DIR}, {@code XDG_RUNTIME_DIR})
     * @param root      whether the process runs as root
     * @param user      the user the directory must belong to; part of the per-user directory's name
     * @param tmpdir    the fallback parent when {@code XDG_RUNTIME_DIR} is unset
     * @param systemDir the system-wide directory used by root
     */
    static Path resolve(Map<String, String> env, boolean root, String user, Path tmpdir, Path systemDir) {
        requireNonNull(env, "env");
        requireNonNull(user, "user");
        String override = env.get(ENV);
        if (override != null && !override.isBlank()) {
            return ensureDirectory(Path.of(override).toAbsolutePath().normalize(), user, true);
        }
        if (root) {
            return ensureDirectory(systemDir, user, false);
        }
        String runtime = env.get("XDG_RUNTIME_DIR");
        Path parent =
                runtime != null && !runtime.isBlank() && Path.of(runtime).isAbsolute() ? Path.of(runtime) : tmpdir;
        return ensureDirectory(parent.resolve("vsm-" + user), user, true);
    }

    /**
     * Creates {@code dir} if missing (mode 0700, made so by {@code mkdir} itself: it is never
     * anyone else's for a moment) and checks it: a directory, not a symbolic link, owned by
     * {@code owner}, writable by no one else, with no directory above it that another user may
     * change ({@link FileTrust#untrustedParents}). An existing directory that fails is refused,
     * not repaired: whoever could write it may have left files in it.
     */
    private static Path ensureDirectory(Path dir, String owner, boolean explicit) {
        requireNonNull(owner, "owner");
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    Path parent = dir.getParent();
                    if (parent != null && !Files.isDirectory(parent)) {
                        Files.createDirectories(parent);
                    }
                    Files.createDirectory(
                            dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } catch (FileAlreadyExistsException raced) {
                    // made by someone else in the meantime; checked below
                }
            }
            FileTrust.Stat stat = FileTrust.lstat(dir);
            if (stat.isSymbolicLink()) {
                throw StorageException.failed(
                        "lock directory '%s' is a symbolic link: remove it (rm %s) and run vsm again%s",
                        dir, dir, explicit ? ", or set " + ENV + " to a directory of yours" : "");
            }
            if (!stat.isDirectory()) {
                throw StorageException.failed(
                        "lock directory '%s' is not a directory (set %s to a writable directory)", dir, ENV);
            }
            if (!Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName().equals(owner) || stat.othersMayWrite()) {
                throw refused(stat, owner, explicit);
            }
            Optional<FileTrust.Problem> parent = FileTrust.untrustedParents(dir);
            if (parent.isPresent()) {
                throw StorageException.failed(
                        "lock directory '%s' is in a directory another user may change: %s%s",
                        dir, parent.get().describe(), explicit ? " (or set " + ENV + " to another directory)" : "");
            }
            if (!Files.isWritable(dir)) {
                throw StorageException.failed(
                        "lock directory '%s' is not writable (set %s to a writable directory)", dir, ENV);
            }
            return dir;
        } catch (IOException e) {
            throw StorageException.failed(
                    e,
                    "cannot create lock directory '%s': %s (set %s to a writable directory)",
                    dir,
                    e.getMessage(),
                    ENV);
        }
    }

    /** The refusal of a lock directory that is someone else's or that others may write. */
    static StorageException refused(FileTrust.Stat stat, String owner, boolean explicit) {
        Path dir = stat.path();
        return StorageException.failed(
                "lock directory '%s' is %s, not %s's alone: remove it (rm -r %s) and run vsm again%s",
                dir, stat.describe(), owner, dir, explicit ? ", or set " + ENV + " to a directory of yours" : "");
    }

    /** Whether this process runs with effective user id 0. */
    static boolean isRoot() {
        return FileTrust.callerIsRoot();
    }

    /** The name of the effective user, as {@link Files#getOwner} names a directory's owner. */
    private static String callerName() {
        try {
            return FileTrust.callerPrincipal().getName();
        } catch (IOException e) {
            return System.getProperty("user.name");
        }
    }
}
