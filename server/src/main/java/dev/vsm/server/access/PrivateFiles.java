package dev.vsm.server.access;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;

/** The checks on the files that hold secrets (the access file, the TLS key): the caller's own, and nobody else's to read or change. */
public final class PrivateFiles {
    private PrivateFiles() {}

    /** The effective user id of this process ({@code /proc/self} belongs to it). */
    public static int callerUid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    /** A file (not a link) of the caller's that neither group nor others may read or write. */
    public static void checkPrivateFile(Path file) throws IOException {
        Map<String, Object> a = Files.readAttributes(file, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        if ((mode & 0170000) != 0100000) {
            throw new AccessException(file + " is not a regular file: remove it");
        }
        if ((Integer) a.get("uid") != callerUid() || (mode & 077) != 0) {
            throw new AccessException(String.format(
                    "%s may be read or changed by others (owner uid %d, mode %04o): make it the owner's alone (chown, chmod 600)",
                    file, a.get("uid"), mode & 07777));
        }
    }

    /** A directory (not a link) of the caller's that neither group nor others may change. */
    public static void checkDirectory(Path dir) throws IOException {
        Map<String, Object> a = Files.readAttributes(dir, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        if ((mode & 0170000) != 0040000) {
            throw new AccessException(dir + " is not a directory");
        }
        int uid = (Integer) a.get("uid");
        if ((uid != callerUid() && uid != 0) || (mode & 022) != 0) {
            throw new AccessException(String.format(
                    "%s may be changed by others (owner uid %d, mode %04o): make it root's and not writable by group or others",
                    dir, uid, mode & 07777));
        }
    }

    /** A directory of the caller's, mode 0700: where a private key lives. */
    public static void checkPrivateDirectory(Path dir) throws IOException {
        Map<String, Object> a = Files.readAttributes(dir, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        if ((mode & 0170000) != 0040000 || (Integer) a.get("uid") != callerUid() || (mode & 07777) != 0700) {
            throw new AccessException(String.format(
                    "%s must be a directory of uid %d with mode 0700 (it is uid %s, mode %04o): fix it or remove it",
                    dir, callerUid(), a.get("uid"), mode & 07777));
        }
    }
}
