package dev.vsm.cli.support;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsing of command-line values that several commands share: VM ids and sizes. */
public final class Args {
    /** pve's {@code pve-vmid}: 100 .. 999999999. */
    private static final Pattern VMID = Pattern.compile("^[1-9][0-9]{2,8}$");

    private static final Pattern SIZE = Pattern.compile("^(\\d{1,19})([KkMmGgTtB]?)$");

    /** The help text for sizes, shared by alloc and resize. */
    public static final String SIZE_HELP =
            "Sizes: N is KiB (as pvesm); NK, NM, NG, NT are binary units; NB is bytes (a whole number of KiB).";

    private Args() {}

    public static int vmid(String text) {
        if (text == null || !VMID.matcher(text).matches()) {
            throw StorageException.badInput(
                    "vmid: value does not look like a valid VM ID: '%s' (expected 100 to 999999999)",
                    VolumeId.printable(String.valueOf(text)));
        }
        return Integer.parseInt(text);
    }

    /** A size in KiB; pve's {@code \d+[MG]?} (KiB by default) plus K, T and a byte count with a B suffix. */
    public static long sizeKib(String text, boolean allowZero) {
        Matcher m = SIZE.matcher(text == null ? "" : text);
        if (!m.matches()) {
            throw StorageException.badInput(
                    "size: unable to parse size '%s' (use N for KiB, or NK, NM, NG, NT, or NB for bytes)",
                    VolumeId.printable(String.valueOf(text)));
        }
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw StorageException.badInput("size: '%s' is too large", text);
        }
        String unit = m.group(2).toUpperCase(java.util.Locale.ROOT);
        long kib;
        try {
            kib = switch (unit) {
                case "", "K" -> n;
                case "M" -> Math.multiplyExact(n, 1024L);
                case "G" -> Math.multiplyExact(n, 1024L * 1024);
                case "T" -> Math.multiplyExact(n, 1024L * 1024 * 1024);
                case "B" -> {
                    if (n % 1024 != 0) {
                        throw StorageException.badInput("size: %s is not a whole number of KiB", text);
                    }
                    yield n / 1024;
                }
                default -> throw new IllegalStateException(unit);
            };
        } catch (ArithmeticException e) {
            throw StorageException.badInput("size: '%s' is too large", text);
        }
        if (kib > Long.MAX_VALUE / 1024) {
            throw StorageException.badInput("size: '%s' is too large", text);
        }
        if (kib == 0 && !allowZero) {
            throw StorageException.badInput("size: must be greater than 0, got '%s'", text);
        }
        return kib;
    }

    public static VolumeId volumeId(String text) {
        return VolumeId.parse(text);
    }
}
