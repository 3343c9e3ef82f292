package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A change to one storage's properties, for {@link VsmStorage#updateStorage} ({@code vsm set},
 * pve's {@code PUT /storage/{storage}}): properties to set (values as {@link NewStorage}'s),
 * properties to remove (pve's {@code delete}: a required or fixed one is refused), and the
 * configuration's digest the change was made against (pve's {@code digest}: when the configuration
 * has changed since, the change is refused and nothing is written).
 */
public final class StorageUpdate {
    private final String storage;
    private final Map<String, Object> set;
    private final List<String> delete;
    private final String digest;

    private StorageUpdate(String storage, Map<String, Object> set, List<String> delete, String digest) {
        this.storage = requireNonNull(storage, "storage");
        this.set = Collections.unmodifiableMap(set);
        this.delete = List.copyOf(delete);
        this.digest = digest;
    }

    /** A change to {@code storage} that changes nothing yet. */
    public static StorageUpdate of(String storage) {
        return new StorageUpdate(storage, new LinkedHashMap<>(), List.of(), null);
    }

    /** Also sets this property. */
    public StorageUpdate set(String name, Object value) {
        Map<String, Object> more = new LinkedHashMap<>(set);
        more.put(requireNonNull(name, "name"), requireNonNull(value, "value"));
        return new StorageUpdate(storage, more, delete, digest);
    }

    /** Sets these properties, in place of those given so far. */
    public StorageUpdate set(Map<String, ?> values) {
        Map<String, Object> copy = new LinkedHashMap<>();
        values.forEach((k, v) -> copy.put(requireNonNull(k, "name"), requireNonNull(v, "value")));
        return new StorageUpdate(storage, copy, delete, digest);
    }

    /** Removes these properties (each entry may be a comma-separated list, as pve's {@code delete}). */
    public StorageUpdate delete(Collection<String> names) {
        return new StorageUpdate(storage, set, List.copyOf(names), digest);
    }

    /** Refuses the change unless the configuration's digest ({@link VsmStorage#configDigest()}) is still this; null: no check. */
    public StorageUpdate digest(String expected) {
        return new StorageUpdate(storage, set, delete, expected);
    }

    public String storage() {
        return storage;
    }

    public Map<String, Object> set() {
        return set;
    }

    public List<String> delete() {
        return delete;
    }

    public String digest() {
        return digest;
    }
}
