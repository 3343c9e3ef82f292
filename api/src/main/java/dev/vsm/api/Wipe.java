package dev.vsm.api;

import dev.vsm.spi.VolumeId;
import java.nio.file.Path;

/**
 * What {@link VsmStorage#wipe} zeroes: a storage volume in place, or a whole block device
 * ({@code vsm wipe}). A device is refused, before anything is written, when it is mounted, used
 * as swap or held (device-mapper, md), itself or through a partition, or is a physical volume of
 * a configured storage; and, unless {@link #force(boolean)}, when it holds partitions, a
 * partition table, a file system or any other signature {@code wipefs} finds. {@code force}
 * overrides only the last.
 */
public final class Wipe {
    private final VolumeId volume;
    private final Path device;
    private final boolean force;
    private final Integer stepMiB;
    private final String throughput;

    private Wipe(VolumeId volume, Path device, boolean force, Integer stepMiB, String throughput) {
        if ((volume == null) == (device == null)) {
            throw new IllegalArgumentException("a wipe zeroes a volume or a device");
        }
        this.volume = volume;
        this.device = device;
        this.force = force;
        this.stepMiB = stepMiB;
        this.throughput = throughput;
    }

    /** Zero a volume's data in place. */
    public static Wipe volume(VolumeId volume) {
        return new Wipe(volume, null, false, null, null);
    }

    /** Zero a whole block device. */
    public static Wipe device(Path device) {
        return new Wipe(null, device, false, null, null);
    }

    /** Zero a device that holds a file system, partitions or another signature (never one in use or a storage's). */
    public Wipe force(boolean force) {
        return new Wipe(volume, device, force, stepMiB, throughput);
    }

    /** blkdiscard's step in MiB, reduced to what the device takes; null: the storage's, else the default. */
    public Wipe stepMiB(Integer stepMiB) {
        return new Wipe(volume, device, force, stepMiB, throughput);
    }

    /** cstream's {@code -t} for the fallback where the device cannot write zeroes; null: the default. */
    public Wipe throughput(String throughput) {
        return new Wipe(volume, device, force, stepMiB, throughput);
    }

    /** The volume, or null for a device. */
    public VolumeId volume() {
        return volume;
    }

    /** The device, or null for a volume. */
    public Path device() {
        return device;
    }

    public boolean force() {
        return force;
    }

    public Integer stepMiB() {
        return stepMiB;
    }

    public String throughput() {
        return throughput;
    }
}
