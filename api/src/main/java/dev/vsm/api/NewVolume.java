package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.VolumeFormat;

/**
 * A volume to allocate ({@code vsm alloc}). Refused as the command line refuses it: an owner
 * outside 100 to 999999999, a size of 0 (but for a subvol), a name of another guest, a name
 * ending in {@code .raw}, {@code .qcow2} or {@code .vmdk} with a different format asked for
 * (without a format the ending sets it), a format the storage does not take.
 */
public final class NewVolume {
    private final String storage;
    private final int vmid;
    private final long sizeKib;
    private final String name;
    private final VolumeFormat format;
    private final String preallocation;

    private NewVolume(String storage, int vmid, long sizeKib, String name, VolumeFormat format, String preallocation) {
        this.storage = requireNonNull(storage, "storage");
        this.vmid = vmid;
        this.sizeKib = sizeKib;
        this.name = name;
        this.format = format;
        this.preallocation = preallocation;
    }

    /** A volume of {@code sizeKib} KiB (pve's unit) for guest {@code vmid} on {@code storage}. */
    public static NewVolume of(String storage, int vmid, long sizeKib) {
        return new NewVolume(storage, vmid, sizeKib, null, null, null);
    }

    /** Its name; null: the next free {@code vm-<vmid>-disk-<n>}. */
    public NewVolume name(String name) {
        return new NewVolume(storage, vmid, sizeKib, name, format, preallocation);
    }

    /** Its format; null: the one its name ends in, else the storage's default. */
    public NewVolume format(VolumeFormat format) {
        return new NewVolume(storage, vmid, sizeKib, name, format, preallocation);
    }

    /** A preallocation mode for this volume ({@code off}, {@code metadata}, {@code falloc}, {@code full}); null: the storage's. */
    public NewVolume preallocation(String mode) {
        return new NewVolume(storage, vmid, sizeKib, name, format, mode);
    }

    public String storage() {
        return storage;
    }

    public int vmid() {
        return vmid;
    }

    public long sizeKib() {
        return sizeKib;
    }

    public String name() {
        return name;
    }

    public VolumeFormat format() {
        return format;
    }

    public String preallocation() {
        return preallocation;
    }
}
