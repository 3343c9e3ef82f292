package dev.vsm.qemu;

import dev.vsm.spi.StorageException;
import java.util.List;
import java.util.Map;

/**
 * Preallocation modes per image format (pve's {@code preallocation_cmd_opt} in pve-storage's Plugin.pm):
 * qcow2 {@code off|metadata|falloc|full}, default {@code metadata}; raw {@code off|falloc|full},
 * default {@code off}, where {@code metadata} means {@code off}; other formats take none.
 */
public final class Preallocation {
    private static final Map<String, List<String>> MODES = Map.of(
            "qcow2", List.of("off", "metadata", "falloc", "full"),
            "raw", List.of("off", "falloc", "full"));

    private Preallocation() {}

    /**
     * The mode to pass to qemu-img for an image of {@code format}, or null for none.
     *
     * @param configured the storage's configured mode (null: the format's default). Formats
     *                   without modes (vmdk) get none whatever the storage says, as in pve; a
     *                   mode asked for on one command is checked with {@link #check} first.
     */
    public static String forFormat(String format, String configured) {
        if (!MODES.containsKey(format)) {
            return null;
        }
        if (configured == null) {
            return format.equals("qcow2") ? "metadata" : "off";
        }
        check(format, configured);
        return normalize(format, configured);
    }

    /** Fails with pve's message when {@code mode} is not a preallocation mode of {@code format}. */
    public static void check(String format, String mode) {
        List<String> modes = MODES.get(format);
        boolean ok = modes != null && (modes.contains(mode) || (format.equals("raw") && mode.equals("metadata")));
        if (!ok) {
            throw StorageException.badInput("preallocation mode '%s' not supported by format '%s'", mode, format);
        }
    }

    private static String normalize(String format, String mode) {
        return format.equals("raw") && mode.equals("metadata") ? "off" : mode;
    }
}
