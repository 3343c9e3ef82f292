package dev.vsm.config;

import dev.vsm.config.PropertyString.Key;
import dev.vsm.spi.StorageException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Backup retention options, the {@code prune-backups} property and {@code vsm prune-backups}'s
 * {@code --keep-*} options (pve's {@code prune-backups} format and {@code validate_prune_backups}):
 * {@code keep-all=<bool>} or any of {@code keep-last}, {@code keep-hourly}, {@code keep-daily},
 * {@code keep-weekly}, {@code keep-monthly}, {@code keep-yearly} {@code =N} (N at least 0).
 * When none is positive the result is {@code keep-all=1}; {@code keep-all} with a positive option is refused.
 */
public final class PruneOptions {
    public static final String PROPERTY = "prune-backups";
    public static final String KEEP_ALL = "keep-all";
    /** The counting options, shortest period first (the order they are applied in). */
    public static final List<String> COUNTS =
            List.of("keep-last", "keep-hourly", "keep-daily", "keep-weekly", "keep-monthly", "keep-yearly");

    private static final Map<String, Key> FORMAT = format();

    private PruneOptions() {}

    private static Map<String, Key> format() {
        Map<String, Key> f = new LinkedHashMap<>();
        f.put(KEEP_ALL, Key.bool());
        COUNTS.forEach(k -> f.put(k, Key.integer(0)));
        return Map.copyOf(f);
    }

    /**
     * Parses and validates a {@code prune-backups} value.
     *
     * @return the options to prune with ({@link PruneMarker#markGroup}'s {@code keep})
     * @throws StorageException (bad input) pve's message for what is wrong
     */
    public static Map<String, Long> parse(String value) {
        Map<String, Number> parsed = PropertyString.parse(value, FORMAT);
        Map<String, Long> res = new LinkedHashMap<>();
        parsed.forEach((k, v) -> res.put(k, v.longValue()));
        Long keepAll = res.remove(KEEP_ALL);
        if (res.values().stream().noneMatch(v -> v > 0)) {
            return Map.of(KEEP_ALL, 1L);
        }
        if (keepAll != null && keepAll > 0) {
            throw StorageException.badInput("keep-all cannot be set together with other options.");
        }
        return res;
    }

    /** The property string of options given one by one (pve's {@code print_property_string}, in pve's key order). */
    public static String print(Map<String, String> options) {
        StringBuilder b = new StringBuilder();
        for (String k : FORMAT.keySet().stream().sorted().toList()) {
            if (options.containsKey(k)) {
                b.append(b.length() == 0 ? "" : ",").append(k).append('=').append(options.get(k));
            }
        }
        return b.toString();
    }
}
