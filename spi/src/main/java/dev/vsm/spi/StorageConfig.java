package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One configured storage: its id, type and validated properties. Values arrive typed by the
 * plugin's schema: {@code Boolean}, {@code Long}, {@code Double}, {@code String} or
 * {@code List<String>}. Absent keys are absent (defaults are the plugin's to apply).
 */
public final class StorageConfig {
    private final String id;
    private final String type;
    private final Map<String, Object> properties;

    public StorageConfig(String id, String type, Map<String, Object> properties) {
        requireNonNull(id, "id");
        requireNonNull(type, "type");
        properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
        this.id = id;
        this.type = type;
        this.properties = properties;
    }

    public Optional<Object> get(String key) {
        return Optional.ofNullable(properties.get(key));
    }

    public Optional<String> string(String key) {
        return get(key).map(Object::toString);
    }

    public boolean bool(String key, boolean defaultValue) {
        Object v = properties.get(key);
        return v instanceof Boolean b ? b : defaultValue;
    }

    public Optional<Long> integer(String key) {
        Object v = properties.get(key);
        return v instanceof Number n ? Optional.of(n.longValue()) : Optional.empty();
    }

    @SuppressWarnings("unchecked")
    public List<String> list(String key) {
        Object v = properties.get(key);
        return v instanceof List<?> l ? (List<String>) l : List.of();
    }

    /** The configured content types, or {@code defaults} when the section names none. */
    public Set<ContentType> content(Set<ContentType> defaults) {
        if (!properties.containsKey(CommonProperties.CONTENT)) {
            return defaults;
        }
        EnumSet<ContentType> set = EnumSet.noneOf(ContentType.class);
        for (String c : list(CommonProperties.CONTENT)) {
            ContentType.fromId(c).filter(t -> t != ContentType.NONE).ifPresent(set::add);
        }
        return Collections.unmodifiableSet(set);
    }

    public boolean disabled() {
        return bool(CommonProperties.DISABLE, false);
    }

    public boolean shared() {
        return bool(CommonProperties.SHARED, false);
    }

    public StorageConfig with(String key, Object value) {
        Map<String, Object> copy = new LinkedHashMap<>(properties);
        if (value == null) {
            copy.remove(key);
        } else {
            copy.put(key, value);
        }
        return new StorageConfig(id, type, copy);
    }

    public String id() {
        return id;
    }

    public String type() {
        return type;
    }

    public Map<String, Object> properties() {
        return properties;
    }

    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof StorageConfig that
                        && Objects.equals(id, that.id)
                        && Objects.equals(type, that.type)
                        && Objects.equals(properties, that.properties);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, type, properties);
    }

    @Override
    public String toString() {
        return "StorageConfig[id=" + id + ", type=" + type + ", properties=" + properties + "]";
    }
}
