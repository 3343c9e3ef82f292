package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A storage to add to the configuration, for {@link VsmStorage#addStorage} ({@code vsm add}, pve's
 * {@code POST /storage}): its type, its id and its properties. A value is a string as the command
 * line takes it ({@code "images,iso"}, {@code "1"}) or a typed value ({@code Boolean}, {@code Long},
 * {@code List<String>}); either way it is checked against the type's schema as the file's values are.
 */
public final class NewStorage {
    private final String type;
    private final String storage;
    private final Map<String, Object> properties;

    private NewStorage(String type, String storage, Map<String, Object> properties) {
        this.type = requireNonNull(type, "type");
        this.storage = requireNonNull(storage, "storage");
        this.properties = Collections.unmodifiableMap(properties);
    }

    /** A storage of {@code type} ({@code dir}, {@code lvm}, ...) named {@code storage}, without properties yet. */
    public static NewStorage of(String type, String storage) {
        return new NewStorage(type, storage, new LinkedHashMap<>());
    }

    /** With one more property (or another value for it). */
    public NewStorage property(String name, Object value) {
        Map<String, Object> more = new LinkedHashMap<>(properties);
        more.put(requireNonNull(name, "name"), requireNonNull(value, "value"));
        return new NewStorage(type, storage, more);
    }

    /** With these properties, in their order, in place of those given so far. */
    public NewStorage properties(Map<String, ?> values) {
        Map<String, Object> copy = new LinkedHashMap<>();
        values.forEach((k, v) -> copy.put(requireNonNull(k, "name"), requireNonNull(v, "value")));
        return new NewStorage(type, storage, copy);
    }

    public String type() {
        return type;
    }

    public String storage() {
        return storage;
    }

    /** The properties, in the order given. */
    public Map<String, Object> properties() {
        return properties;
    }
}
