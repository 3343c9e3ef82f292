package dev.vsm.lvm;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of volumes kept as LVs (pve's {@code parse_volname} of {@code LVMPlugin} and
 * {@code LvmThinPlugin}): an LV name as {@link LvmNames} allows it, of the form
 * {@code vm-<vmid>-<anything>}, or {@code base-<vmid>-<anything>} (a base volume) where the
 * storage type has base volumes ({@link #WITH_BASES}, else {@link #VM_ONLY}); and the LVs of
 * their snapshots, {@code snap_<volume>_<snapshot>}. Which format a name stands for is the
 * plugin's rule.
 */
public final class LvVolumeNames {
    /** {@code vm-<vmid>-<anything>} only: no base volumes (lvm). */
    public static final LvVolumeNames VM_ONLY = new LvVolumeNames("vm");
    /** {@code vm-<vmid>-<anything>} and the base volumes {@code base-<vmid>-<anything>} (lvmthin). */
    public static final LvVolumeNames WITH_BASES = new LvVolumeNames("vm|base");

    private static final String VM_PREFIX = "vm-";
    private static final String BASE_PREFIX = "base-";
    private static final String SNAPSHOT_PREFIX = "snap_";
    /** A snapshot name as pve's guests make them ({@code CONFIGID_RE}); the engine checks a new one. */
    private static final Pattern SNAPSHOT_NAME = Pattern.compile("[a-zA-Z][a-zA-Z0-9_-]+");

    private final Pattern volume;

    private LvVolumeNames(String prefixes) {
        this.volume = Pattern.compile("^((" + prefixes + ")-(\\d+)-\\S+)$");
    }

    /**
     * Parses a volume name as a volume of {@code format}; bad input with pve's messages when it is
     * not one ({@code lvm name ... contains illegal characters}, {@code unable to parse lvm volume
     * name ...}, {@code ... - VMID out of range}).
     */
    public VolumeName parse(String volname, VolumeFormat format) {
        requireNonNull(format, "format");
        LvmNames.check(volname);
        Matcher m = volume.matcher(volname);
        if (!m.matches()) {
            throw StorageException.badInput("unable to parse lvm volume name '%s'", volname);
        }
        int vmid;
        try {
            vmid = Integer.parseInt(m.group(3));
        } catch (NumberFormatException e) {
            throw StorageException.badInput("unable to parse lvm volume name '%s' - VMID out of range", volname);
        }
        return VolumeName.builder(volname, ContentType.IMAGES, m.group(1), format)
                .vmid(vmid)
                .isBase(m.group(2).equals("base"))
                .build();
    }

    /** Whether an LV name is a volume name ({@link #parse} accepts it). */
    public boolean isVolumeName(String name) {
        try {
            parse(name, VolumeFormat.RAW);
            return true;
        } catch (StorageException e) {
            return false;
        }
    }

    /**
     * Whether an LV name is valid and of a volume's form, whatever the size of its VMID (which
     * {@link #parse} may still refuse as out of range).
     */
    public boolean hasVolumeForm(String name) {
        return LvmNames.isValid(name) && volume.matcher(name).matches();
    }

    /** The LV of a volume's snapshot: {@code snap_<volume>_<snapshot>}. */
    public static String snapshotLv(String volume, String snapshot) {
        return SNAPSHOT_PREFIX + volume + "_" + snapshot;
    }

    /** Whether an LV is a snapshot of {@code volume} (pve: {@code snap_<volume>_<configid>}). */
    public static boolean isSnapshotOf(String lv, String volume) {
        String prefix = SNAPSHOT_PREFIX + volume + "_";
        return lv.startsWith(prefix)
                && SNAPSHOT_NAME.matcher(lv.substring(prefix.length())).matches();
    }

    /** The base volume name a {@code vm-} volume becomes. */
    public static String baseName(String volume) {
        if (!volume.startsWith(VM_PREFIX)) {
            throw new IllegalArgumentException("not a vm- volume: " + volume);
        }
        return BASE_PREFIX + volume.substring(VM_PREFIX.length());
    }
}
