package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeId;
import java.io.OutputStream;

/**
 * A volume written as a pve stream ({@code vsm export}): an 8-byte little-endian size, then the
 * data, to a stream the caller owns (it is not closed).
 */
public final class Export {
    private final VolumeId volume;
    private final StreamFormat format;
    private final OutputStream out;
    private final boolean withSnapshots;

    private Export(VolumeId volume, StreamFormat format, OutputStream out, boolean withSnapshots) {
        this.volume = requireNonNull(volume, "volume");
        this.format = requireNonNull(format, "format");
        this.out = requireNonNull(out, "out");
        this.withSnapshots = withSnapshots;
    }

    public static Export of(VolumeId volume, StreamFormat format, OutputStream out) {
        return new Export(volume, format, out, false);
    }

    /** Carry the image's snapshots (a qcow2+size stream carries them all). */
    public Export withSnapshots(boolean withSnapshots) {
        return new Export(volume, format, out, withSnapshots);
    }

    public VolumeId volume() {
        return volume;
    }

    public StreamFormat format() {
        return format;
    }

    public OutputStream out() {
        return out;
    }

    public boolean withSnapshots() {
        return withSnapshots;
    }
}
