package dev.vsm.lvm;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.util.regex.Pattern;

/**
 * The names lvm storages accept for volume groups, thin pools and logical volumes (pve's
 * {@code parse_lvm_name} and its JSON format {@code pve-storage-vgname}): letters, digits,
 * {@code -}, {@code _} and {@code .}, starting and ending with a letter or digit.
 */
public final class LvmNames {
    /** The rule as a whole-value regular expression (for a property's pattern). */
    public static final String REGEX = "(?i)^[a-z0-9][a-z0-9\\-_.]*[a-z0-9]$";

    private static final Pattern NAME = Pattern.compile(REGEX);

    private LvmNames() {}

    public static boolean isValid(String name) {
        return NAME.matcher(name).matches();
    }

    /** Bad input {@code lvm name '<name>' contains illegal characters} unless the name is valid. */
    public static void check(String name) {
        if (!isValid(name)) {
            throw StorageException.badInput("lvm name '%s' contains illegal characters", VolumeId.printable(name));
        }
    }
}
