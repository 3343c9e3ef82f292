package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

/**
 * A parsed volume name: pve's {@code (vtype, name, vmid, basename, basevmid, isBase, format)}.
 *
 * @param volname  the volume name as given (the part of the volume id after the storage id)
 * @param type     the content type the name stands for
 * @param name     the file or LV name of the volume itself
 * @param vmid     the owning guest, or null (iso, templates, ...)
 * @param baseName for a linked clone, the name of its base volume; else null
 * @param baseVmid for a linked clone, the owner of its base volume; else null
 * @param isBase   whether the volume itself is a base (template) volume
 * @param format   raw, qcow2, vmdk, subvol, ova+vmdk, ...
 */
public record VolumeName(String volname, ContentType type, String name, Integer vmid, String baseName,
                         Integer baseVmid, boolean isBase, String format) {
    public VolumeName {
        requireNonNull(volname, "volname");
        requireNonNull(type, "type");
        requireNonNull(name, "name");
        requireNonNull(format, "format");
    }

    public boolean isLinkedClone() {
        return baseName != null;
    }
}
