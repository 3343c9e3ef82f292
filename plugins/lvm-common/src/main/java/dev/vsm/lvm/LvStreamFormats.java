package dev.vsm.lvm;

import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import java.util.Set;

/**
 * The pve stream formats of LVM-backed volumes (pve's {@code LVMPlugin}, which {@code LvmThinPlugin}
 * inherits): only {@code raw+size}, for raw volumes, without snapshots.
 */
public final class LvStreamFormats {
    private LvStreamFormats() {}

    public static Set<StreamFormat> export(VolumeName volume, boolean withSnapshots) {
        return rawOnly(VolumeFormat.fromId(volume.format()).orElse(null), withSnapshots);
    }

    public static Set<StreamFormat> imports(VolumeFormat volumeFormat, boolean withSnapshots) {
        return rawOnly(volumeFormat, withSnapshots);
    }

    private static Set<StreamFormat> rawOnly(VolumeFormat format, boolean withSnapshots) {
        return !withSnapshots && format == VolumeFormat.RAW ? Set.of(StreamFormat.RAW_SIZE) : Set.of();
    }
}
