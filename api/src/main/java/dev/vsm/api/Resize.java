package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.VolumeId;

/** A volume to grow ({@code vsm resize}); the size is rounded up to whole KiB, shrinking is refused. */
public final class Resize {
    private final VolumeId volume;
    private final long bytes;
    private final boolean relative;
    private final String snapshot;

    private Resize(VolumeId volume, long bytes, boolean relative, String snapshot) {
        this.volume = requireNonNull(volume, "volume");
        this.bytes = bytes;
        this.relative = relative;
        this.snapshot = snapshot;
    }

    /** Grow {@code volume} to {@code bytes}. */
    public static Resize to(VolumeId volume, long bytes) {
        return new Resize(volume, bytes, false, null);
    }

    /** Grow {@code volume} by {@code bytes} ({@code vsm resize VOLUME +SIZE}); the size is read under the storage's lock. */
    public static Resize by(VolumeId volume, long bytes) {
        return new Resize(volume, bytes, true, null);
    }

    /**
     * The same resize of the layer of one of the volume's snapshots ({@code vsm resize --snapshot}),
     * or of the volume itself for null: what a manager does before it commits a larger child into
     * that layer (dir with {@code snapshot-as-volume-chain}; other storages refuse).
     */
    public Resize snapshot(String name) {
        return new Resize(volume, bytes, relative, name);
    }

    /** The snapshot whose layer is resized; null for the volume itself. */
    public String snapshot() {
        return snapshot;
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
