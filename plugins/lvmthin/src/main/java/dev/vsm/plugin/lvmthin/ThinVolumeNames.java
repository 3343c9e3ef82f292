package dev.vsm.plugin.lvmthin;

import dev.vsm.lvm.LvmNames;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * LVM-thin volume names (pve-storage's LvmThinPlugin.pm): an LV name as {@link LvmNames} allows it, of the form
 * {@code vm-<vmid>-<anything>} or {@code base-<vmid>-<anything>} (a base volume); always raw. A
 * linked clone's name does not say which base it came from. Snapshots are LVs
 * {@code snap_<volume>_<snapshot>}.
 */
final class ThinVolumeNames {
    private static final Pattern VOLUME = Pattern.compile("^((vm|base)-(\\d+)-\\S+)$");
    private static final String BASE_PREFIX = "base-";
    private static final String VM_PREFIX = "vm-";
    /** A snapshot name as pve's guests make them ({@code CONFIGID_RE}); the engine checks a new one. */
    private static final Pattern SNAPSHOT_NAME = Pattern.compile("[a-zA-Z][a-zA-Z0-9_-]+");

    private ThinVolumeNames() {}

    /** Parses a volume name; bad input with pve's messages when it is not one. */
    static VolumeName parse(String volname) {
        LvmNames.check(volname);
        Matcher m = VOLUME.matcher(volname);
        if (!m.matches()) {
            throw StorageException.badInput("unable to parse lvm volume name '%s'", volname);
        }
        int vmid;
        try {
            vmid = Integer.parseInt(m.group(3));
        } catch (NumberFormatException e) {
            throw StorageException.badInput("unable to parse lvm volume name '%s' - VMID out of range", volname);
        }
        return VolumeName.builder(volname, ContentType.IMAGES, m.group(1), VolumeFormat.RAW)
                .vmid(vmid)
                .isBase(m.group(2).equals("base"))
                .build();
    }

    /** Whether an LV name is a volume name of this plugin (what {@link #parse} accepts). */
    static boolean isVolumeName(String name) {
        try {
            parse(name);
            return true;
        } catch (StorageException e) {
            return false;
        }
    }

    /** The LV of a volume's snapshot. */
    static String snapshotLv(String volume, String snapshot) {
        return "snap_" + volume + "_" + snapshot;
    }

    /** Whether an LV is a snapshot of {@code volume} (pve: {@code snap_<volume>_<configid>}). */
    static boolean isSnapshotOf(String lv, String volume) {
        String prefix = "snap_" + volume + "_";
        return lv.startsWith(prefix)
                && SNAPSHOT_NAME.matcher(lv.substring(prefix.length())).matches();
    }

    /** The base volume name a {@code vm-} volume becomes. */
    static String baseName(String volume) {
        if (!volume.startsWith(VM_PREFIX)) {
            throw new IllegalArgumentException("not a vm- volume: " + volume);
        }
        return BASE_PREFIX + volume.substring(VM_PREFIX.length());
    }
}
