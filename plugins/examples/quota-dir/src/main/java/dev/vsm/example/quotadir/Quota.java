package dev.vsm.example.quotadir;

import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;

/**
 * A storage's {@code vm-quota}: the most one VM's disks may add up to, in bytes.
 *
 * @param bytes the quota
 */
record Quota(long bytes) {
    /** A whole number with a binary unit: {@code 512M}, {@code 10G}, {@code 2T}. */
    static final String PATTERN = "^[1-9][0-9]{0,12}[KMGTkmgt]$";

    Quota {
        if (bytes <= 0) {
            throw new IllegalArgumentException("a quota is positive: " + bytes);
        }
    }

    static Quota of(StorageConfig config) {
        String text = config.string(QuotaDirPlugin.VM_QUOTA)
                .orElseThrow(() ->
                        StorageException.badInput("storage '%s': %s is missing", config.id(), QuotaDirPlugin.VM_QUOTA));
        return parse(config.id(), text);
    }

    static Quota parse(String storage, String text) {
        if (!text.matches(PATTERN)) {
            throw StorageException.badInput(
                    "storage '%s': %s '%s' is not a size such as 10G", storage, QuotaDirPlugin.VM_QUOTA, text);
        }
        long number = Long.parseLong(text.substring(0, text.length() - 1));
        int shift = switch (Character.toUpperCase(text.charAt(text.length() - 1))) {
            case 'K' -> 10;
            case 'M' -> 20;
            case 'G' -> 30;
            default -> 40;
        };
        if (number > Long.MAX_VALUE >> shift) {
            throw StorageException.badInput(
                    "storage '%s': %s '%s' is too large", storage, QuotaDirPlugin.VM_QUOTA, text);
        }
        return new Quota(number << shift);
    }

    /** A byte count for messages, exact, in the largest binary unit it is a whole number of: {@code 10 GiB}, {@code 1536 MiB}. */
    static String human(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int unit = 0;
        long value = bytes;
        while (value != 0 && value % 1024 == 0 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return value + " " + units[unit];
    }
}
