package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;

/**
 * A full copy of a volume as a new volume, for {@link VsmStorage#copy}: to a storage
 * ({@code vsm copy}: the owner, format and name may be given, else the source's owner, its format
 * when the target takes it, and the owner's next free name), or as a named new volume (pve's
 * {@code POST .../content/{volume}} with {@code target}: the target's storage, owner, name and
 * format). The storages' bandwidth limits for a copy apply.
 */
public final class CopyVolume {
    private final VolumeId source;
    private final String targetStorage;
    private final VolumeId target;
    private final Integer vmid;
    private final VolumeFormat format;

    private CopyVolume(VolumeId source, String targetStorage, VolumeId target, Integer vmid, VolumeFormat format) {
        this.source = requireNonNull(source, "source");
        this.targetStorage = VolumeId.checkStorageId(requireNonNull(targetStorage, "targetStorage"));
        this.target = target;
        this.vmid = vmid;
        this.format = format;
    }

    /** {@code source} copied to {@code storage} ({@code vsm copy}). */
    public static CopyVolume of(VolumeId source, String storage) {
        return new CopyVolume(source, storage, null, null, null);
    }

    /** {@code source} copied as the new volume {@code target} (pve's copy), which must not exist. */
    public static CopyVolume to(VolumeId source, VolumeId target) {
        return new CopyVolume(source, requireNonNull(target, "target").storage(), target, null, null);
    }

    /** The copy's owner; null: the source's. Not for a copy {@link #to} a named volume, whose name says it. */
    public CopyVolume vmid(Integer owner) {
        requireNoTarget("vmid");
        return new CopyVolume(source, targetStorage, null, owner, format);
    }

    /** The copy's format; null: the source's when the target storage takes it, else its default. */
    public CopyVolume format(VolumeFormat copyFormat) {
        requireNoTarget("format");
        return new CopyVolume(source, targetStorage, null, vmid, copyFormat);
    }

    private void requireNoTarget(String what) {
        if (target != null) {
            throw new IllegalStateException("a copy to a named volume takes its " + what + " from the name");
        }
    }

    public VolumeId source() {
        return source;
    }

    public String targetStorage() {
        return targetStorage;
    }

    /** The named new volume; null for a copy to a storage. */
    public VolumeId target() {
        return target;
    }

    public Integer vmid() {
        return vmid;
    }

    public VolumeFormat format() {
        return format;
    }
}
