package dev.vsm.lvm;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The names lvm storages accept for volume groups, thin pools and logical volumes (pve's
 * {@code parse_lvm_name} and its JSON format {@code pve-storage-vgname}): letters, digits,
 * {@code -}, {@code _} and {@code .}, starting and ending with a letter or digit; and, beyond pve,
 * as long as lvm2 takes them (pve lets a longer name reach lvm2, which fails with an internal error).
 */
public final class LvmNames {
    /** The rule as a whole-value regular expression (for a property's pattern). */
    public static final String REGEX = "(?i)^[a-z0-9][a-z0-9\\-_.]*[a-z0-9]$";

    /** lvm2's longest name: {@code NAME_LEN} (128) bytes with the terminating NUL. */
    public static final int MAX_LENGTH = 127;
    /**
     * lvm2 refuses an LV whose group's and own names are longer together ({@code Internal error:
     * LV name "<vg>/<lv>" length 128 is not supported}, measured with lvm2 2.03).
     */
    public static final int MAX_GROUP_AND_LV_LENGTH = 124;

    private static final Pattern NAME = Pattern.compile(REGEX);

    private LvmNames() {}

    public static boolean isValid(String name) {
        return name.length() <= MAX_LENGTH && NAME.matcher(name).matches();
    }

    /** Bad input {@code lvm name '<name>' contains illegal characters} (or is too long) unless the name is valid. */
    public static void check(String name) {
        if (!NAME.matcher(name).matches()) {
            throw StorageException.badInput("lvm name '%s' contains illegal characters", VolumeId.printable(name));
        }
        if (name.length() > MAX_LENGTH) {
            throw StorageException.badInput(
                    "lvm name '%s' is too long (%d characters, lvm2 takes at most %d)",
                    VolumeId.printable(name), name.length(), MAX_LENGTH);
        }
    }

    /** {@link #check} for an LV of volume group {@code vg}, and the two names not too long together for lvm2. */
    public static void checkInGroup(String vg, String lv) {
        check(lv);
        if (vg.length() + lv.length() > MAX_GROUP_AND_LV_LENGTH) {
            throw StorageException.badInput(
                    "lvm name '%s' is too long for volume group '%s' (%d + %d characters, "
                            + "lvm2 takes at most %d together)",
                    VolumeId.printable(lv), vg, vg.length(), lv.length(), MAX_GROUP_AND_LV_LENGTH);
        }
    }

    /**
     * The name of the LV of volume group {@code vg} that a host path names: {@code /dev/<vg>/<lv>},
     * or device-mapper's {@code /dev/mapper/<vg>-<lv>} (where each {@code -} inside either name is
     * doubled). Only the path is looked at; whether the LV exists is not asked.
     */
    public static Optional<String> lvAtPath(String vg, Path path) {
        Path p = path.toAbsolutePath().normalize();
        if (p.getNameCount() != 3 || !p.getName(0).toString().equals("dev")) {
            return Optional.empty();
        }
        String dir = p.getName(1).toString();
        String last = p.getName(2).toString();
        String lv = null;
        if (dir.equals(vg)) {
            lv = last;
        } else if (dir.equals("mapper") && last.startsWith(vg.replace("-", "--") + "-")) {
            String escaped = last.substring(vg.replace("-", "--").length() + 1);
            if (!escaped.replace("--", "").contains("-")) { // a single '-' left ends another group's name
                lv = escaped.replace("--", "-");
            }
        }
        return Optional.ofNullable(lv).filter(LvmNames::isValid);
    }

    /**
     * The volume a host path names ({@link #lvAtPath}): an LV that {@code parseVolume} accepts
     * (returns from without a {@link StorageException}); another LV of the group is no volume.
     */
    public static Optional<String> volumeAtPath(String vg, Path path, Consumer<String> parseVolume) {
        Optional<String> lv = lvAtPath(vg, path);
        try {
            lv.ifPresent(parseVolume);
        } catch (StorageException e) {
            return Optional.empty();
        }
        return lv;
    }
}
