package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.VolumeId;

/** A volume to turn into a base volume, read-only, the source of linked clones ({@code vsm create-base}). */
public final class CreateBase {
    private final VolumeId volume;

    private CreateBase(VolumeId volume) {
        this.volume = requireNonNull(volume, "volume");
    }

    public static CreateBase of(VolumeId volume) {
        return new CreateBase(volume);
    }

    public VolumeId volume() {
        return volume;
    }
}
