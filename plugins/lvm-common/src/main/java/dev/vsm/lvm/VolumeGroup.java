package dev.vsm.lvm;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One volume group as {@code vgs} reports it (pve's {@code lvm_vgs} entry).
 *
 * @param name    the group's name
 * @param size    its size in bytes
 * @param free    unallocated bytes
 * @param lvCount how many logical volumes it holds
 * @param pvs     its physical volumes, when asked for ({@link LvmCommands#vgsWithPvs()}); else empty
 */
public record VolumeGroup(String name, long size, long free, long lvCount, List<PhysicalVolume> pvs) {
    public VolumeGroup {
        requireNonNull(name, "name");
        pvs = List.copyOf(pvs);
    }

    /** Allocated bytes. */
    public long used() {
        return size - free;
    }

    /**
     * One physical volume of a group.
     *
     * @param name the device, e.g. {@code /dev/sdb}
     * @param size its size in bytes
     * @param free its unallocated bytes
     */
    public record PhysicalVolume(String name, long size, long free) {
        public PhysicalVolume {
            requireNonNull(name, "name");
        }
    }
}
