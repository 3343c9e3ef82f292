package dev.vsm.config;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A comma-separated {@code key=value} property value of a fixed set of keys (pve's
 * {@code parse_property_string} with a flat format, as for {@code prune-backups} and {@code bwlimit}),
 * with pve's wording: {@code duplicate key in comma-separated list property: <k>},
 * {@code invalid key in comma-separated list property: <k>}, {@code missing key in comma-separated list property},
 * {@code value without key, but schema does not define a default key}, and for a value
 * {@code <k>: type check ('<type>') failed - got '<v>'} or {@code <k>: value must have a minimum value of <n>}.
 */
final class PropertyString {
    private static final Pattern PART = Pattern.compile("([^=]+)=(.+)", Pattern.DOTALL);
    private static final Pattern INTEGER = Pattern.compile("[+-]?\\d+");
    private static final Pattern NUMBER = Pattern.compile("[+-]?(\\d+\\.\\d+|\\d+\\.|\\.\\d+|\\d+)([eE][+-]?\\d+)?");

    /** The type of one key's value. */
    public enum Type {
        BOOLEAN,
        INTEGER,
        NUMBER
    }

    /** One key of the format: its type and least value (for INTEGER and NUMBER). */
    public record Key(Type type, double minimum) {
        public static Key bool() {
            return new Key(Type.BOOLEAN, 0);
        }

        public static Key integer(long minimum) {
            return new Key(Type.INTEGER, minimum);
        }

        public static Key number(double minimum) {
            return new Key(Type.NUMBER, minimum);
        }
    }

    private PropertyString() {}

    /**
     * Parses {@code text} with {@code format} (key to {@link Key}, in the order to report them).
     *
     * @return the keys given, in their order, with booleans as 1 or 0 and numbers as {@code Long} or {@code Double}
     * @throws StorageException (bad input) the first thing wrong, in pve's words
     */
    public static Map<String, Number> parse(String text, Map<String, Key> format) {
        Map<String, String> raw = new LinkedHashMap<>();
        for (String part : text.split(",", -1)) {
            if (part.isBlank()) {
                continue;
            }
            var m = PART.matcher(part);
            if (m.matches()) {
                String k = m.group(1);
                if (raw.containsKey(k)) {
                    throw StorageException.badInput(
                            "duplicate key in comma-separated list property: %s", VolumeId.printable(k));
                }
                if (!format.containsKey(k)) {
                    throw StorageException.badInput(
                            "invalid key in comma-separated list property: %s", VolumeId.printable(k));
                }
                raw.put(k, m.group(2));
            } else if (!part.contains("=")) {
                throw StorageException.badInput("value without key, but schema does not define a default key");
            } else {
                throw StorageException.badInput("missing key in comma-separated list property");
            }
        }
        Map<String, Number> values = new LinkedHashMap<>();
        raw.forEach((k, v) -> values.put(k, value(k, v, format.get(k))));
        return values;
    }

    private static Number value(String key, String v, Key spec) {
        switch (spec.type()) {
            case BOOLEAN -> {
                return PveBoolean.parse(v).map(b -> b ? 1L : 0L).orElseThrow(() -> typeCheck(key, "boolean", v));
            }
            case INTEGER -> {
                if (!INTEGER.matcher(v).matches()) {
                    throw typeCheck(key, "integer", v);
                }
                long n;
                try {
                    n = Long.parseLong(v.startsWith("+") ? v.substring(1) : v);
                } catch (NumberFormatException e) {
                    throw StorageException.badInput("%s: value '%s' is out of range for an integer", key, v);
                }
                if (n < spec.minimum()) {
                    throw StorageException.badInput(
                            "%s: value must have a minimum value of %d", key, (long) spec.minimum());
                }
                return n;
            }
            default -> {
                if (!NUMBER.matcher(v).matches()) {
                    throw typeCheck(key, "number", v);
                }
                double d = Double.parseDouble(v);
                if (Double.isInfinite(d)) {
                    throw StorageException.badInput("%s: value '%s' is out of range for a number", key, v);
                }
                if (d < spec.minimum()) {
                    throw StorageException.badInput(
                            "%s: value must have a minimum value of %s", key, minimum(spec.minimum()));
                }
                return d;
            }
        }
    }

    private static String minimum(double m) {
        return m == Math.rint(m) ? Long.toString((long) m) : Double.toString(m);
    }

    private static StorageException typeCheck(String key, String type, String v) {
        return StorageException.badInput("%s: type check ('%s') failed - got '%s'", key, type, VolumeId.printable(v));
    }
}
