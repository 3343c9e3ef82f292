package dev.vsm.lock;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

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
 * <p>The system directory is used only by root: {@code /run/lock} is world-writable on most
 * systems, so a directory there that root did not make could hold symlinks planted by someone else.
 */
public final class LockDirectory {
    /** The system-wide lock directory, used when running as root. */
    public static final Path SYSTEM = Path.of("/run/lock/vsm");
    /** The environment variable that overrides the lock directory. */
    public static final String ENV = "VSM_LOCK_DIR";

    private LockDirectory() {}

    /** Resolves the lock directory from the process environment and creates it if needed. */
    public static Path resolve() {
        return resolve(System.getenv(), isRoot(), System.getProperty("user.name"),
                Path.of(System.getProperty("java.io.tmpdir")), SYSTEM);
    }

    /**
     * Resolves the lock directory and creates it if needed.
     *
     * @param env       the environment ({@code VSM_LOCK_DIR}, {@code XDG_RUNTIME_DIR})
     * @param root      whether the process runs as root
     * @param user      the user name, part of the per-user directory's name
     * @param tmpdir    the fallback parent when {@code XDG_RUNTIME_DIR} is unset
     * @param systemDir the system-wide directory used by root
     */
    static Path resolve(Map<String, String> env, boolean root, String user, Path tmpdir, Path systemDir) {
        requireNonNull(env, "env");
        String override = env.get(ENV);
        if (override != null && !override.isBlank()) {
            return ensureDirectory(Path.of(override).toAbsolutePath(), null);
        }
        if (root) {
            return ensureDirectory(systemDir, null);
        }
        String runtime = env.get("XDG_RUNTIME_DIR");
        Path parent = runtime != null && !runtime.isBlank() && Path.of(runtime).isAbsolute() ? Path.of(runtime) : tmpdir;
        requireNonNull(user, "user");
        return ensureDirectory(parent.resolve("vsm-" + user), user);
    }

    /** Creates {@code dir} if missing; with an {@code owner}, as a private directory that must belong to that user. */
    private static Path ensureDirectory(Path dir, String owner) {
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    if (owner != null) {
                        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                    } else {
                        Files.createDirectories(dir);
                    }
                } catch (FileAlreadyExistsException raced) {
                    // made by someone else in the meantime; checked below
                }
            }
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw StorageException.failed("lock directory '%s' is not a directory (set %s to a writable directory)", dir, ENV);
            }
            if (owner != null && !Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName().equals(owner)) {
                throw StorageException.failed("lock directory '%s' belongs to another user (set %s to a directory of yours)", dir, ENV);
            }
            if (!Files.isWritable(dir)) {
                throw StorageException.failed("lock directory '%s' is not writable (set %s to a writable directory)", dir, ENV);
            }
            return dir;
        } catch (IOException e) {
            throw StorageException.failed(e, "cannot create lock directory '%s': %s (set %s to a writable directory)", dir, e.getMessage(), ENV);
        }
    }

    /** Whether this process runs with effective user id 0 ({@code /proc/self} belongs to the effective user). */
    static boolean isRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | UnsupportedOperationException | ClassCastException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }
}
