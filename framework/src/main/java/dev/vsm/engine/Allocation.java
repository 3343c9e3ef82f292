package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A volume to allocate ({@code vsm alloc}, pve's {@code vdisk_alloc} behind {@code pvesm alloc}),
 * with the checks pvesm makes before the storage is asked: the owner is a VM id (100 to
 * 999999999), a name ending in {@code .raw}, {@code .qcow2} or {@code .vmdk} sets the format (a
 * different format asked for is refused), and the size is not 0 (except for a subvol, whose size
 * 0 means no quota).
 */
public final class Allocation {
    /** pve's {@code pve-vmid}. */
    public static final int MIN_VMID = 100;

    public static final int MAX_VMID = 999_999_999;

    private static final Pattern EXT = Pattern.compile("\\.(raw|qcow2|vmdk)$");

    private final String storage;
    private final int vmid;
    private final long sizeKib;
    private final String name;
    private final String format;
    private final String preallocation;

    private Allocation(String storage, int vmid, long sizeKib, String name, String format, String preallocation) {
        this.storage = requireNonNull(storage, "storage");
        this.vmid = vmid;
        this.sizeKib = sizeKib;
        this.name = name;
        this.format = format;
        this.preallocation = preallocation;
    }

    /** A volume of {@code sizeKib} KiB for guest {@code vmid} on {@code storage}, named and formatted as the storage does. */
    public static Allocation of(String storage, int vmid, long sizeKib) {
        return new Allocation(storage, vmid, sizeKib, null, null, null);
    }

    /** The volume's name; null or empty: the next free {@code vm-<vmid>-disk-<n>}. */
    public Allocation name(String name) {
        return new Allocation(
                storage, vmid, sizeKib, name == null || name.isEmpty() ? null : name, format, preallocation);
    }

    /** The format as the user gave it; null: the one the name ends in, else the storage's. */
    public Allocation format(String format) {
        return new Allocation(storage, vmid, sizeKib, name, format, preallocation);
    }

    /** A preallocation mode for this volume; null: the storage's. */
    public Allocation preallocation(String preallocation) {
        return new Allocation(storage, vmid, sizeKib, name, format, preallocation);
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

    public String preallocation() {
        return preallocation;
    }

    /**
     * The format asked for: the one the name ends in, else the one given (null for the
     * storage's), after the checks of this class.
     *
     * @throws StorageException (bad input) when a check fails
     */
    public String checkedFormat() {
        VolumeId.checkStorageId(storage);
        checkVmid(vmid);
        String fmt = format;
        Matcher m = name == null ? null : EXT.matcher(name);
        if (m != null && m.find()) {
            if (fmt != null && !fmt.equals(m.group(1))) {
                throw StorageException.badInput("format: different storage formats (%s != %s)", fmt, m.group(1));
            }
            fmt = m.group(1);
        }
        if (sizeKib < 0 || sizeKib == 0 && !VolumeFormat.SUBVOL.is(fmt)) {
            throw StorageException.badInput("size: must be greater than 0, got %d KiB", sizeKib);
        }
        return fmt;
    }

    /** pve's {@code pve-vmid}: 100 to 999999999. */
    public static int checkVmid(int vmid) {
        if (vmid < MIN_VMID || vmid > MAX_VMID) {
            throw StorageException.badInput(
                    "vmid: value does not look like a valid VM ID: '%d' (expected 100 to 999999999)", vmid);
        }
        return vmid;
    }

    @Override
    public String toString() {
        return "Allocation[storage=" + storage + ", vmid=" + vmid + ", sizeKib=" + sizeKib + ", name=" + name
                + ", format=" + format + ", preallocation=" + preallocation + "]";
    }
}
