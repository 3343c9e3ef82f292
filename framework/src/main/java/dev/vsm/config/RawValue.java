package dev.vsm.config;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A property value before it is checked against its {@link dev.vsm.spi.PropertySpec}: a YAML
 * node from the file, or a value handed to an edit (a command-line string or a typed Java value).
 * Both go through the same checks in {@link PropertyValues}.
 */
sealed interface RawValue {
    /** The line in the file (1-based), or 0 when the value did not come from a file. */
    int line();

    /** How YAML resolved a scalar (core schema), or what Java type an edit value had. */
    enum Kind {
        STRING,
        BOOLEAN,
        INTEGER,
        FLOAT,
        NULL,
        OTHER_TAG
    }

    /**
     * A single value.
     *
     * @param text the value as written (for YAML: without quotes)
     * @param kind how it was resolved
     * @param tag  the YAML tag for {@link Kind#OTHER_TAG} (e.g. {@code !!binary}), else null
     */
    record Scalar(String text, Kind kind, String tag, int line) implements RawValue {
        public Scalar {
            requireNonNull(text, "text");
            requireNonNull(kind, "kind");
        }
    }

    /** A list of values. */
    record Sequence(List<RawValue> items, int line) implements RawValue {
        public Sequence {
            items = List.copyOf(items);
        }
    }

    /** A mapping, where no property takes one. */
    record Mapping(int line) implements RawValue {}

    /**
     * The raw form of a value handed to an edit: a {@code String} (as typed on the command line),
     * {@code Boolean}, {@code Integer}/{@code Long}, {@code Float}/{@code Double}, or a collection of these.
     */
    static RawValue of(Object value) {
        requireNonNull(value, "value");
        if (value instanceof RawValue raw) {
            return raw;
        }
        if (value instanceof String s) {
            return new Scalar(s, Kind.STRING, null, 0);
        }
        if (value instanceof Boolean b) {
            return new Scalar(b.toString(), Kind.BOOLEAN, null, 0);
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return new Scalar(value.toString(), Kind.INTEGER, null, 0);
        }
        if (value instanceof Double || value instanceof Float) {
            return new Scalar(value.toString(), Kind.FLOAT, null, 0);
        }
        if (value instanceof Collection<?> c) {
            List<RawValue> items = new ArrayList<>(c.size());
            for (Object o : c) {
                items.add(of(o));
            }
            return new Sequence(items, 0);
        }
        throw new IllegalArgumentException("unsupported value type "
                + value.getClass().getName() + ": use String, Boolean, Long, Double or a List of these");
    }
}
