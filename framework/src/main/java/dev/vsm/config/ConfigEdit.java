package dev.vsm.config;

import static java.util.Objects.requireNonNull;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A change to the storage configuration: pvesm's {@code add}, {@code set} and {@code remove}.
 * Values are strings as typed on the command line, or typed Java values ({@code Boolean},
 * {@code Long}, {@code Double}, {@code List<String>}); either way they are checked against the
 * type's schema as values in the file are.
 */
public sealed interface ConfigEdit {
    /** The storage the edit is about. */
    String id();

    /** pve's prefix for errors found while applying the edit under the lock ({@code update storage failed: }). */
    String errorPrefix();

    /** {@code vsm add <type> <id> --key value ...}: a new storage. */
    record Add(String type, String id, Map<String, ?> values) implements ConfigEdit {
        public Add {
            requireNonNull(type, "type");
            requireNonNull(id, "id");
            values = ordered(values);
        }

        @Override
        public String errorPrefix() {
            return "create storage failed: ";
        }
    }

    /**
     * {@code vsm set <id> --key value ... --delete k1,k2 --digest <sha1>}: changes properties of a storage.
     *
     * @param set    properties to set
     * @param delete properties to remove (each entry may itself be a comma-separated list)
     * @param digest the digest the configuration must still have, or null to skip the check
     */
    record Update(String id, Map<String, ?> set, Collection<String> delete, String digest) implements ConfigEdit {
        public Update {
            requireNonNull(id, "id");
            set = ordered(set);
            delete = List.copyOf(delete);
        }

        @Override
        public String errorPrefix() {
            return "update storage failed: ";
        }
    }

    /** {@code vsm remove <id>}: removes a storage's section (never its data). */
    record Remove(String id) implements ConfigEdit {
        public Remove {
            requireNonNull(id, "id");
        }

        @Override
        public String errorPrefix() {
            return "delete storage failed: ";
        }
    }

    /** An unmodifiable copy keeping the caller's order (problems are reported in that order); no null keys or values. */
    private static <V> Map<String, V> ordered(Map<String, V> map) {
        Map<String, V> copy = new LinkedHashMap<>();
        map.forEach((k, v) -> copy.put(requireNonNull(k, "key"), requireNonNull(v, () -> "value of " + k)));
        return Collections.unmodifiableMap(copy);
    }
}
