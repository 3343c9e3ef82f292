package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A volume id, {@code storeid:volname}. The volume name is everything after the first colon
 * that follows a valid storage id; it may itself hold colons and slashes.
 */
public final class VolumeId {
    private final String storage;
    private final String volname;

    public VolumeId(String storage, String volname) {
        requireNonNull(storage, "storage");
        requireNonNull(volname, "volname");
        this.storage = storage;
        this.volname = volname;
    }

    private static final Pattern VOLID =
            Pattern.compile("^([a-z][a-z0-9\\-_.]*[a-z0-9]):(.+)$", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final Pattern STORAGE_ID =
            Pattern.compile("^[a-z][a-z0-9\\-_.]*[a-z0-9]$", Pattern.CASE_INSENSITIVE);

    /** Parses {@code storeid:volname}; fails with pve's {@code unable to parse volume ID '<volid>'}. */
    public static VolumeId parse(String volid) {
        Matcher m = VOLID.matcher(requireNonNull(volid, "volid"));
        if (!m.matches() || volid.indexOf('\0') >= 0 || volid.contains("\n")) {
            throw StorageException.badInput("unable to parse volume ID '%s'", printable(volid));
        }
        return new VolumeId(m.group(1), m.group(2));
    }

    /**
     * The longest storage id: its lock, {@code storage-<id>}, must fit a lock name's 200
     * characters (which keeps the lock file {@code storage-<id>.lock} and the ZooKeeper lock node
     * well under a file name's 255 bytes); ids are ASCII. pve sets no limit.
     */
    public static final int MAX_STORAGE_ID = 200 - "storage-".length();

    /** Checks a storage id as pve's {@code parse_storage_id} does, and its length, and returns it. */
    public static String checkStorageId(String id) {
        requireNonNull(id, "id");
        if (id.length() < 2) {
            throw StorageException.badInput("storage ID '%s' cannot be shorter than 2 characters", printable(id));
        }
        if (!STORAGE_ID.matcher(id).matches()) {
            throw StorageException.badInput("storage ID '%s' contains illegal characters", printable(id));
        }
        if (id.length() > MAX_STORAGE_ID) {
            throw StorageException.badInput(
                    "storage ID '%s...' is %d characters long: at most %d (its lock storage-<id> must fit a "
                            + "lock name's 200 characters) - choose a shorter ID",
                    printable(id.substring(0, 32)), id.length(), MAX_STORAGE_ID);
        }
        return id;
    }

    /** Makes a user-supplied string safe to echo in a one-line message (no control characters). */
    public static String printable(String s) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), 256));
        for (int i = 0; i < s.length() && b.length() < 256; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\x%02x", (int) c));
            } else {
                b.append(c);
            }
        }
        if (b.length() >= 256) {
            b.append("...");
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return storage + ":" + volname;
    }

    public String storage() {
        return storage;
    }

    public String volname() {
        return volname;
    }

    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof VolumeId that
                        && Objects.equals(storage, that.storage)
                        && Objects.equals(volname, that.volname);
    }

    @Override
    public int hashCode() {
        return Objects.hash(storage, volname);
    }
}
