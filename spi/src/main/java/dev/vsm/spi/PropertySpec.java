package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One storage property a plugin accepts in its configuration section.
 *
 * <p>Build with the factories and withers: {@code PropertySpec.string("path", "...").asRequired().asFixed()}.
 *
 * @param name         the key, as in pve ({@code path}, {@code saferemove-stepsize}, ...)
 * @param type         the value type
 * @param description  one line for {@code --help}
 * @param defaultValue the value assumed when the key is absent, or null
 * @param allowed      for {@link PropertyType#ENUM}, {@link PropertyType#LIST} and {@link PropertyType#INTEGER}:
 *                     the allowed values (empty: any)
 * @param pattern      a regular expression every string value (or list element) must match, or null
 * @param required     the key must be present
 * @param fixed        the value is set when the storage is added and cannot be changed later
 */
public record PropertySpec(String name, PropertyType type, String description, Object defaultValue,
                           List<String> allowed, String pattern, boolean required, boolean fixed) {

    public enum PropertyType {
        STRING, BOOLEAN, INTEGER, NUMBER, ENUM,
        /** A list of strings; written as a YAML sequence or a comma-separated string. */
        LIST
    }

    public PropertySpec {
        requireNonNull(name, "name");
        requireNonNull(type, "type");
        requireNonNull(description, "description");
        allowed = List.copyOf(allowed);
    }

    public static PropertySpec string(String name, String description) {
        return new PropertySpec(name, PropertyType.STRING, description, null, List.of(), null, false, false);
    }

    public static PropertySpec bool(String name, String description) {
        return new PropertySpec(name, PropertyType.BOOLEAN, description, null, List.of(), null, false, false);
    }

    public static PropertySpec integer(String name, String description) {
        return new PropertySpec(name, PropertyType.INTEGER, description, null, List.of(), null, false, false);
    }

    public static PropertySpec number(String name, String description) {
        return new PropertySpec(name, PropertyType.NUMBER, description, null, List.of(), null, false, false);
    }

    public static PropertySpec oneOf(String name, String description, List<String> values) {
        return new PropertySpec(name, PropertyType.ENUM, description, null, values, null, false, false);
    }

    public static PropertySpec list(String name, String description) {
        return new PropertySpec(name, PropertyType.LIST, description, null, List.of(), null, false, false);
    }

    public PropertySpec asRequired() {
        return new PropertySpec(name, type, description, defaultValue, allowed, pattern, true, fixed);
    }

    public PropertySpec asFixed() {
        return new PropertySpec(name, type, description, defaultValue, allowed, pattern, required, true);
    }

    public PropertySpec withDefault(Object value) {
        return new PropertySpec(name, type, description, value, allowed, pattern, required, fixed);
    }

    public PropertySpec withAllowed(List<String> values) {
        return new PropertySpec(name, type, description, defaultValue, values, pattern, required, fixed);
    }

    public PropertySpec withPattern(String regex) {
        return new PropertySpec(name, type, description, defaultValue, allowed, regex, required, fixed);
    }
}
