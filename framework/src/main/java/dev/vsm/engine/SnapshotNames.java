package dev.vsm.engine;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.util.regex.Pattern;

/**
 * Names of volume snapshots, as pve's guests name them ({@code pve-configid}, at most 40
 * characters): a letter, then letters, digits, {@code _} or {@code -}. {@code current} stands for
 * the live volume and is no snapshot name.
 */
final class SnapshotNames {
    /** pve's {@code CONFIGID_RE}. */
    private static final String REGEX = "[a-zA-Z][a-zA-Z0-9_-]+";
    /** The longest name. */
    static final int MAX_LENGTH = 40;

    private static final Pattern NAME = Pattern.compile(REGEX);

    private SnapshotNames() {}

    /** Bad input unless {@code name} is a valid snapshot name. */
    static void check(String name) {
        if (name.equals("current")) {
            throw StorageException.badInput("snapshot name 'current' is reserved (it stands for the volume itself)");
        }
        if (name.length() > MAX_LENGTH || !NAME.matcher(name).matches()) {
            throw StorageException.badInput(
                    "invalid snapshot name '%s' - a letter, then letters, digits, '_' or '-' " + "(2 to %d characters)",
                    VolumeId.printable(name), MAX_LENGTH);
        }
    }
}
