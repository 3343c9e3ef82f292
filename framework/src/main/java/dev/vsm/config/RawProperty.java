package dev.vsm.config;

import static java.util.Objects.requireNonNull;

/**
 * One {@code key: value} of a storage section before checking.
 *
 * @param key   the property name
 * @param line  the line of the key (1-based), or 0 when it did not come from a file
 * @param value the value as written
 */
record RawProperty(String key, int line, RawValue value) {
    RawProperty {
        requireNonNull(key, "key");
        requireNonNull(value, "value");
    }
}
