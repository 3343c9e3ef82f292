package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.VolumeId;

/**
 * A snapshot of a volume, for {@link VsmStorage#snapshot}, {@link VsmStorage#rollback} and
 * {@link VsmStorage#deleteSnapshot}. The name is checked as the command line checks it.
 */
public final class Snapshot {
    private final VolumeId volume;
    private final String name;

    private Snapshot(VolumeId volume, String name) {
        this.volume = requireNonNull(volume, "volume");
        this.name = requireNonNull(name, "name");
    }

    public static Snapshot of(VolumeId volume, String name) {
        return new Snapshot(volume, name);
    }

    public VolumeId volume() {
        return volume;
    }

    public String name() {
        return name;
    }
}
