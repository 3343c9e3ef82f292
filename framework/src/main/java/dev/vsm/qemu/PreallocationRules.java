package dev.vsm.qemu;

import dev.vsm.spi.Preallocation;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Preallocation modes per image format (pve's {@code preallocation_cmd_opt} in pve-storage's Plugin.pm):
 * qcow2 {@code off|metadata|falloc|full}, default {@code metadata}; raw {@code off|falloc|full},
 * default {@code off}, where {@code metadata} means {@code off}; other formats take none.
 */
public final class PreallocationRules {
    private static final Map<VolumeFormat, Set<Preallocation>> MODES = new EnumMap<>(Map.of(
            VolumeFormat.QCOW2,
            EnumSet.allOf(Preallocation.class),
            VolumeFormat.RAW,
            EnumSet.of(Preallocation.OFF, Preallocation.METADATA, Preallocation.FALLOC, Preallocation.FULL)));

    private PreallocationRules() {}

    /**
     * The mode to pass to qemu-img for an image of {@code format}, or null for none.
     *
     * @param configured the storage's configured mode (null: the format's default). Formats
     *                   without modes (vmdk) get none whatever the storage says, as in pve; a
     *                   mode asked for on one command is checked with {@link #check} first.
     */
    public static Preallocation forFormat(VolumeFormat format, Preallocation configured) {
        if (!MODES.containsKey(format)) {
            return null;
        }
        if (configured == null) {
            return format == VolumeFormat.QCOW2 ? Preallocation.METADATA : Preallocation.OFF;
        }
        check(format, configured);
        return format == VolumeFormat.RAW && configured == Preallocation.METADATA ? Preallocation.OFF : configured;
    }

    /** As {@link #forFormat(VolumeFormat, Preallocation)} for a format as qemu-img names it: none for the formats vsm does not store. */
    static Preallocation forFormat(String format, Preallocation configured) {
        return VolumeFormat.fromId(format).map(f -> forFormat(f, configured)).orElse(null);
    }

    /** Fails with pve's message when {@code mode} is not a preallocation mode of {@code format}. */
    public static void check(VolumeFormat format, Preallocation mode) {
        Set<Preallocation> modes = MODES.get(format);
        if (modes == null || !modes.contains(mode)) {
            throw refused(format, mode.id());
        }
    }

    /**
     * The mode named {@code text}, checked against {@code format} ({@code vsm alloc --preallocation});
     * pve's message for a name that is no mode at all, too.
     */
    public static Preallocation parse(VolumeFormat format, String text) {
        Preallocation mode = Preallocation.fromId(text).orElseThrow(() -> refused(format, text));
        check(format, mode);
        return mode;
    }

    private static StorageException refused(VolumeFormat format, String mode) {
        return StorageException.badInput("preallocation mode '%s' not supported by format '%s'", mode, format.id());
    }
}
