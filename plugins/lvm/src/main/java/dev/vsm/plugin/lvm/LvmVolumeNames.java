package dev.vsm.plugin.lvm;

import dev.vsm.lvm.LvVolumeNames;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;

/**
 * lvm's volume names: {@code vm-<vmid>-<anything>} LVs as {@link LvVolumeNames#VM_ONLY} reads
 * them (there are no base volumes on LVM); {@code .qcow2} at the end makes it a qcow2 volume,
 * anything else raw.
 */
final class LvmVolumeNames {
    /** The prefix saferemove gives an LV before wiping it. */
    static final String DELETE_PREFIX = "del-";

    private static final java.util.regex.Pattern SNAPSHOT_LAYER =
            java.util.regex.Pattern.compile("snap_vm-\\d+-.+_[a-zA-Z][a-zA-Z0-9_-]{1,39}\\.qcow2");

    private LvmVolumeNames() {}

    /** Parses a volume name; bad input with pve's messages when it is not one. */
    static VolumeName parse(String volname) {
        return LvVolumeNames.VM_ONLY.parse(volname, formatOf(volname));
    }

    /**
     * Whether a name is of a volume's form (a name {@link #parse} accepts, or one whose VMID is
     * out of range).
     */
    static boolean isVolumeName(String name) {
        return LvVolumeNames.VM_ONLY.hasVolumeForm(name);
    }

    /** Whether a name is of a volume chain's snapshot LV, {@code snap_vm-<vmid>-<name>_<snapshot>.qcow2}. */
    static boolean isSnapshotLayerName(String name) {
        return SNAPSHOT_LAYER.matcher(name).matches();
    }

    static VolumeFormat formatOf(String name) {
        return name.endsWith(".qcow2") ? VolumeFormat.QCOW2 : VolumeFormat.RAW;
    }

    /**
     * pve's {@code verify_volname_format}: a raw volume's name must not end in {@code .qcow2}, a
     * qcow2 one's must. Other formats are not checked here.
     */
    static void checkFormat(String name, VolumeFormat format) {
        if ((format != VolumeFormat.RAW && format != VolumeFormat.QCOW2) || formatOf(name) == format) {
            return;
        }
        String base = name.replaceFirst("\\.[^.]+$", "");
        String suggestion = format == VolumeFormat.RAW ? base : base + "." + format.id();
        throw StorageException.badInput(
                "volume name '%s' does not match requested format '%s' (did you mean '%s'?)", name, format, suggestion);
    }
}
