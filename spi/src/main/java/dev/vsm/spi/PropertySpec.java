package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Objects;

/**
 * One storage property a plugin accepts in its configuration section.
 *
 * <p>Made with the factories and withers, so that it can gain fields without breaking plugins
 * built against an older SPI: {@code PropertySpec.string("path", "...").asRequired().asFixed()}.
 */
public final class PropertySpec {

    public enum PropertyType {
        STRING,
        BOOLEAN,
        INTEGER,
        NUMBER,
        ENUM,
        /** A list of strings; written as a YAML sequence or a comma-separated string. */
        LIST
    }

    private final String name;
    private final PropertyType type;
    private final String description;
    private final Object defaultValue;
    private final List<String> allowed;
    private final String pattern;
    private final boolean required;
    private final boolean fixed;

    private PropertySpec(
            String name,
            PropertyType type,
            String description,
            Object defaultValue,
            List<String> allowed,
            String pattern,
            boolean required,
            boolean fixed) {
        this.name = requireNonNull(name, "name");
        this.type = requireNonNull(type, "type");
        this.description = requireNonNull(description, "description");
        this.defaultValue = defaultValue;
        this.allowed = List.copyOf(allowed);
        this.pattern = pattern;
        this.required = required;
        this.fixed = fixed;
    }

    /** The key, as in pve ({@code path}, {@code saferemove-stepsize}, ...). */
    public String name() {
        return name;
    }

    /** The value type. */
    public PropertyType type() {
        return type;
    }

    /** One line for {@code --help}. */
    public String description() {
        return description;
    }

    /** The value assumed when the key is absent, or null. */
    public Object defaultValue() {
        return defaultValue;
    }

    /**
     * For {@link PropertyType#ENUM}, {@link PropertyType#LIST} and {@link PropertyType#INTEGER}:
     * the allowed values (empty: any).
     */
    public List<String> allowed() {
        return allowed;
    }

    /** A regular expression every string value (or list element) must match, or null. */
    public String pattern() {
        return pattern;
    }

    /** Whether the key must be present. */
    public boolean required() {
        return required;
    }

    /** Whether the value is set when the storage is added and cannot be changed later. */
    public boolean fixed() {
        return fixed;
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

    @Override
    public boolean equals(Object o) {
        return o instanceof PropertySpec that
                && required == that.required
                && fixed == that.fixed
                && name.equals(that.name)
                && type == that.type
                && description.equals(that.description)
                && Objects.equals(defaultValue, that.defaultValue)
                && allowed.equals(that.allowed)
                && Objects.equals(pattern, that.pattern);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, type, description, defaultValue, allowed, pattern, required, fixed);
    }

    @Override
    public String toString() {
        return "PropertySpec[name=" + name + ", type=" + type + ", description=" + description + ", defaultValue="
                + defaultValue + ", allowed=" + allowed + ", pattern=" + pattern + ", required=" + required
                + ", fixed=" + fixed + "]";
    }
}
