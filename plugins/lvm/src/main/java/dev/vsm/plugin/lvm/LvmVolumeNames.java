package dev.vsm.plugin.lvm;

import dev.vsm.lvm.LvmNames;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * LVM volume names (pve-storage's LVMPlugin.pm): an LV name as pve's {@code parse_lvm_name} allows it, of the
 * form {@code vm-<vmid>-<anything>}; {@code .qcow2} at the end makes it a qcow2 volume, anything
 * else raw. There are no base volumes on LVM.
 */
final class LvmVolumeNames {
    private static final Pattern VOLUME = Pattern.compile("^(vm-(\\d+)-\\S+)$");
    /** The prefix saferemove gives an LV before wiping it. */
    static final String DELETE_PREFIX = "del-";

    private LvmVolumeNames() {}

    /** Parses a volume name; bad input with pve's messages when it is not one. */
    static VolumeName parse(String volname) {
        LvmNames.check(volname);
        Matcher m = VOLUME.matcher(volname);
        if (!m.matches()) {
            throw StorageException.badInput("unable to parse lvm volume name '%s'", volname);
        }
        int vmid;
        try {
            vmid = Integer.parseInt(m.group(2));
        } catch (NumberFormatException e) {
            throw StorageException.badInput("unable to parse lvm volume name '%s' - VMID out of range", volname);
        }
        return VolumeName.builder(volname, ContentType.IMAGES, m.group(1), formatOf(volname))
                .vmid(vmid)
                .build();
    }

    /** Whether a name is a volume name of this plugin (what {@link #parse} accepts). */
    static boolean isVolumeName(String name) {
        return LvmNames.isValid(name) && VOLUME.matcher(name).matches();
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
