package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.VolumeId;

/**
 * A snapshot of a volume to rename, for {@link VsmStorage#renameSnapshot} ({@code vsm
 * rename-snapshot}). Both names are checked as the command line checks them.
 */
public final class SnapshotRename {
    private final VolumeId volume;
    private final String name;
    private final String newName;

    private SnapshotRename(VolumeId volume, String name, String newName) {
        this.volume = requireNonNull(volume, "volume");
        this.name = requireNonNull(name, "name");
        this.newName = requireNonNull(newName, "newName");
    }

    /** Rename snapshot {@code name} of {@code volume} to {@code newName}. */
    public static SnapshotRename of(VolumeId volume, String name, String newName) {
        return new SnapshotRename(volume, name, newName);
    }

    public VolumeId volume() {
        return volume;
    }

    public String name() {
        return name;
    }

    public String newName() {
        return newName;
    }
}
