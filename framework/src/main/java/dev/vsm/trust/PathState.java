package dev.vsm.trust;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a path named when vsm checked a file it did not make (an image to import), to tell later
 * whether it still names the same, unchanged file. vsm inspects such a file in Java and then
 * lets qemu-img open it again by its name; someone who may write the file, or rename something
 * on its way, could swap in another image in between (one that names {@code /etc/shadow} as its
 * backing file). Compared again once qemu-img is done, a swap or a write shows, and the import is
 * undone.
 *
 * <p>Kept for every directory and link on the way (the path as given and, when a link is on it,
 * the path it resolves to): its device and inode, so a renamed-in replacement shows. For the file
 * itself, and for every entry whose directory someone other than root and the caller could change
 * (another user owns it, or group or others may write it and it is not sticky, or sticky and
 * the entry is another user's), also its change time ({@code ctime}),
 * which a write, a rename or a new link moves (and which no one can set back): so a swap that is
 * undone before the check still shows. A directory whose own parent only root may change keeps
 * only its inode, since its change time moves whenever anyone adds a file to it ({@code /tmp}).
 */
public final class PathState {
    private static final int GROUP_OR_OTHER_WRITE = 0022;
    private static final int STICKY = 01000;

    private final Path path;
    private final List<Entry> entries;

    private PathState(Path path, List<Entry> entries) {
        this.path = path;
        this.entries = entries;
    }

    private record Entry(Path path, Object dev, Object ino, Object ctime, boolean compareCtime) {
        boolean sameAs(Entry now) {
            return Objects.equals(dev, now.dev)
                    && Objects.equals(ino, now.ino)
                    && (!compareCtime || Objects.equals(ctime, now.ctime));
        }
    }

    /** The state of {@code path} now; the file must exist. */
    public static PathState of(Path path) throws IOException {
        return new PathState(path, read(path));
    }

    /**
     * The first entry on the way that is no longer what it was (the path itself when the file was
     * written, replaced or renamed away), or null when everything is as it was.
     */
    public Path changed() {
        List<Entry> now;
        try {
            now = read(path);
        } catch (IOException e) {
            return path;
        }
        if (now.size() != entries.size()) {
            return path;
        }
        for (int i = 0; i < entries.size(); i++) {
            if (!entries.get(i).sameAs(now.get(i))) {
                return entries.get(i).path();
            }
        }
        return null;
    }

    private static List<Entry> read(Path path) throws IOException {
        Path given = path.toAbsolutePath().normalize();
        Set<Path> ways = new LinkedHashSet<>();
        ways.add(given);
        ways.add(given.toRealPath());
        List<Entry> entries = new ArrayList<>();
        int uid = FileTrust.callerUid();
        for (Path way : ways) {
            Map<String, Object> parent = null;
            for (Path prefix : prefixes(way)) {
                boolean last = prefix.equals(way);
                Map<String, Object> a =
                        Files.readAttributes(prefix, "unix:dev,ino,ctime,uid,mode", LinkOption.NOFOLLOW_LINKS);
                boolean changeable = parent != null && othersMayRename(parent, a, uid);
                entries.add(new Entry(prefix, a.get("dev"), a.get("ino"), a.get("ctime"), last || changeable));
                parent = a;
            }
            if (way.equals(given)) {
                Map<String, Object> target = Files.readAttributes(way, "unix:dev,ino,ctime");
                entries.add(new Entry(way, target.get("dev"), target.get("ino"), target.get("ctime"), true));
            }
        }
        return entries;
    }

    /**
     * Whether someone but root and the caller may rename {@code entry} out of {@code directory} or
     * put another in its place: the directory is another user's, or group or others may write it
     * (in a sticky one, such as {@code /tmp}, only when the entry is another user's).
     */
    private static boolean othersMayRename(Map<String, Object> directory, Map<String, Object> entry, int uid) {
        int owner = (Integer) directory.get("uid");
        int mode = (Integer) directory.get("mode");
        int entryOwner = (Integer) entry.get("uid");
        boolean othersMayWrite =
                (mode & GROUP_OR_OTHER_WRITE) != 0 && ((mode & STICKY) == 0 || (entryOwner != 0 && entryOwner != uid));
        return othersMayWrite || (owner != 0 && owner != uid);
    }

    private static List<Path> prefixes(Path absolute) {
        List<Path> prefixes = new ArrayList<>();
        Path prefix = absolute.getRoot();
        for (Path name : absolute) {
            prefix = prefix.resolve(name);
            prefixes.add(prefix);
        }
        return prefixes;
    }
}
