package dev.vsm.trust;

import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.Map;
import java.util.Optional;

/**
 * Whether another local user could have changed a file or directory vsm is about to trust (run
 * code from, read its configuration from, keep its locks in): the rule of OpenSSH's
 * {@code StrictModes} and sudo's checks of {@code sudoers}.
 *
 * <p>A path is trusted when, after resolving its symbolic links, it and every directory above
 * it up to {@code /} (those above the link too, when it is one) belong to root or to the calling user, and none of them may be written by
 * group or others, except a directory with the sticky bit ({@code /tmp}, {@code /run/lock}: mode
 * 1777, root's): there others may add names but never rename or remove one they do not own.
 * A directory above that someone else may write is as bad as the file itself being writable:
 * they could rename it away and put their own in its place.
 */
public final class FileTrust {
    private static final int S_IFMT = 0170000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFLNK = 0120000;
    private static final int S_ISVTX = 01000;
    private static final int GROUP_OR_OTHER_WRITE = 0022;

    private FileTrust() {}

    /** What {@code lstat} says about one path: its owner and its {@code st_mode} (type and permissions). */
    public record Stat(Path path, int uid, int mode) {
        public boolean isDirectory() {
            return (mode & S_IFMT) == S_IFDIR;
        }

        public boolean isRegularFile() {
            return (mode & S_IFMT) == S_IFREG;
        }

        public boolean isSymbolicLink() {
            return (mode & S_IFMT) == S_IFLNK;
        }

        /** Group or others may write it. */
        public boolean othersMayWrite() {
            return (mode & GROUP_OR_OTHER_WRITE) != 0;
        }

        public boolean sticky() {
            return (mode & S_ISVTX) != 0;
        }

        /** {@code owned by uid 1000 mode 0777}, the words of the refusals. */
        public String describe() {
            return String.format("owned by uid %d mode %04o", uid, mode & 07777);
        }

        /** {@code fifo}, {@code symbolic link}, ...: what kind of file it is. */
        public String kind() {
            return switch (mode & S_IFMT) {
                case S_IFREG -> "regular file";
                case S_IFDIR -> "directory";
                case S_IFLNK -> "symbolic link";
                case 0010000 -> "fifo";
                case 0140000 -> "socket";
                case 0020000 -> "character device";
                case 0060000 -> "block device";
                default -> "file of unknown type";
            };
        }
    }

    /**
     * Why a path is not trusted, and what to do about it.
     *
     * @param path the offending file or directory (the one asked about, or a directory above it)
     * @param stat what {@code lstat} says about it
     * @param why  {@code is writable by group or others}, {@code is owned by another user}
     * @param fix  the command that makes it trusted ({@code chmod go-w /etc/vsm})
     */
    public record Problem(Path path, Stat stat, String why, String fix) {
        /** {@code '<path>' is writable by group or others (owned by uid 0 mode 0777): chmod go-w <path>}. */
        public String describe() {
            return "'" + path + "' " + why + " (" + stat.describe() + "): " + fix;
        }
    }

    /** The effective user id of this process ({@code /proc/self} belongs to it). */
    public static int callerUid() {
        return Caller.UID;
    }

    public static boolean callerIsRoot() {
        return Caller.UID == 0;
    }

    /** The effective user, as {@link Files#getOwner} names owners (for comparing with attributes read through a file descriptor). */
    public static UserPrincipal callerPrincipal() throws IOException {
        return Files.getOwner(Path.of("/proc/self"));
    }

    /** {@code lstat(path)}: never follows a symbolic link. */
    public static Stat lstat(Path path) throws IOException {
        Map<String, Object> a = Files.readAttributes(path, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
        return new Stat(path, (Integer) a.get("uid"), (Integer) a.get("mode"));
    }

    /**
     * The first reason not to trust {@code path} (see the class comment), checking the path
     * itself and then each directory above it.
     *
     * @throws IOException when the path does not exist or cannot be examined
     */
    public static Optional<Problem> untrusted(Path path) throws IOException {
        Path real = path.toRealPath();
        Optional<Problem> own = ownProblem(lstat(real), false);
        if (own.isPresent()) {
            return own;
        }
        Optional<Problem> above = untrustedParents(real);
        if (above.isPresent() || real.equals(path.toAbsolutePath().normalize())) {
            return above;
        }
        return untrustedParents(path); // a link: whoever may change its directory may point it elsewhere
    }

    /**
     * The first reason not to trust the directories above {@code path} (its parent, up to {@code /});
     * {@code path} itself is not looked at. Links in the path are resolved first.
     */
    public static Optional<Problem> untrustedParents(Path path) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        if (parent == null) {
            return Optional.empty();
        }
        for (Path dir = parent.toRealPath(); dir != null; dir = dir.getParent()) {
            Optional<Problem> problem = ownProblem(lstat(dir), true);
            if (problem.isPresent()) {
                return problem;
            }
        }
        return Optional.empty();
    }

    /**
     * As {@link #untrusted}, for a path that need not exist yet: then the nearest directory above
     * it that exists is checked, since that is where it would be made (whoever may change that
     * directory may put their own in its place first).
     */
    public static Optional<Problem> untrustedOrWhereMade(Path path) throws IOException {
        Path existing = path.toAbsolutePath().normalize();
        while (existing.getParent() != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        return untrusted(existing);
    }

    /**
     * As root, refuses (bad input, nothing done) a program, directory or file that vsm was pointed
     * at from outside its configuration ({@code $VSM_QEMU_IMG}, {@code $VSM_SYSFS}, the home
     * directory of the built-in storage) when it fails the rule above ({@link #untrustedOrWhereMade}):
     * root would run another user's code, trust their answers or write where they choose. The
     * same rule keeps plugin jars and, as root, the configuration file. Other callers are not
     * checked: what they name runs with their own rights.
     *
     * @param what  how the path is named in the refusal ({@code $VSM_QEMU_IMG '/opt/q/qemu-img'})
     * @param other the other way out, after the problem's own fix ({@code or unset VSM_QEMU_IMG})
     */
    public static void requireTrustedAsRoot(Path path, String what, String other) {
        if (!callerIsRoot()) {
            return;
        }
        Optional<Problem> problem;
        try {
            problem = untrustedOrWhereMade(path);
        } catch (IOException e) {
            throw StorageException.badInput(
                    "%s refused as root: cannot check who may change it (%s) - %s", what, e.getMessage(), other);
        }
        problem.ifPresent(p -> {
            throw StorageException.badInput("%s refused as root: %s, %s", what, p.describe(), other);
        });
    }

    /** The owner and mode rule for one path; {@code stickyAllowed} for the directories above (see the class comment). */
    private static Optional<Problem> ownProblem(Stat stat, boolean stickyAllowed) {
        if (stat.uid() != 0 && stat.uid() != callerUid()) {
            String owner = callerIsRoot() ? "root" : "root or you";
            return Optional.of(new Problem(
                    stat.path(),
                    stat,
                    "is owned by another user (not " + owner + ")",
                    "chown root " + stat.path() + ", or use another one"));
        }
        if (stat.othersMayWrite() && !(stickyAllowed && stat.isDirectory() && stat.sticky())) {
            return Optional.of(
                    new Problem(stat.path(), stat, "is writable by group or others", "chmod go-w " + stat.path()));
        }
        return Optional.empty();
    }

    /** Read once: a process does not change its user. */
    private static final class Caller {
        static final int UID = readUid();

        private static int readUid() {
            try {
                return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            } catch (IOException | UnsupportedOperationException | ClassCastException e) {
                return "root".equals(System.getProperty("user.name")) ? 0 : -1;
            }
        }
    }
}
