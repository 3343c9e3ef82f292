package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.VolumeId;

/** A volume to grow ({@code vsm resize}); the size is rounded up to whole KiB, shrinking is refused. */
public final class Resize {
    private final VolumeId volume;
    private final long bytes;
    private final boolean relative;

    private Resize(VolumeId volume, long bytes, boolean relative) {
        this.volume = requireNonNull(volume, "volume");
        this.bytes = bytes;
        this.relative = relative;
    }

    /** Grow {@code volume} to {@code bytes}. */
    public static Resize to(VolumeId volume, long bytes) {
        return new Resize(volume, bytes, false);
    }

    /** Grow {@code volume} by {@code bytes} ({@code vsm resize VOLUME +SIZE}); the size is read under the storage's lock. */
    public static Resize by(VolumeId volume, long bytes) {
        return new Resize(volume, bytes, true);
    }

    public VolumeId volume() {
        return volume;
    }

    public long bytes() {
        return bytes;
    }

    public boolean relative() {
        return relative;
    }
}
