package dev.vsm.config;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * What a configuration file holds, in file order: the storage sections (checked ones and ones of
 * types not loaded) and the reserved top-level entries. Immutable; edits make new ones.
 *
 * @param topLevelKeys the top-level keys in file order ({@code storages} and reserved ones)
 * @param reserved     the values of the reserved top-level keys, kept as read
 * @param order        every storage id, in file order
 * @param storages     the checked sections
 * @param unloaded     the sections of types that are not loaded
 */
record ConfigContents(
        List<String> topLevelKeys,
        Map<String, Node> reserved,
        List<String> order,
        Map<String, StorageConfig> storages,
        Map<String, UnloadedSection> unloaded) {
    static final ConfigContents EMPTY =
            new ConfigContents(List.of(ConfigParser.STORAGES), Map.of(), List.of(), Map.of(), Map.of());

    ConfigContents {
        topLevelKeys = List.copyOf(topLevelKeys);
        reserved = Collections.unmodifiableMap(new LinkedHashMap<>(reserved));
        order = List.copyOf(order);
        storages = Collections.unmodifiableMap(new LinkedHashMap<>(storages));
        unloaded = Collections.unmodifiableMap(new LinkedHashMap<>(unloaded));
        for (String id : order) {
            if (storages.containsKey(id) == unloaded.containsKey(id)) {
                throw new IllegalArgumentException(
                        "storage '" + id + "' must be in exactly one of storages and unloaded");
            }
        }
        if (order.size() != storages.size() + unloaded.size()) {
            throw new IllegalArgumentException("order does not list every section");
        }
    }

    /** The storages alone, without the reserved top-level entries. */
    ConfigContents storagesOnly() {
        return new ConfigContents(List.of(ConfigParser.STORAGES), Map.of(), order, storages, unloaded);
    }

    boolean contains(String id) {
        return storages.containsKey(id) || unloaded.containsKey(id);
    }

    /** With {@code config} in place of the section of the same id, or appended when there is none. */
    ConfigContents with(StorageConfig config) {
        requireNonNull(config, "config");
        List<String> newOrder = new ArrayList<>(order);
        if (!contains(config.id())) {
            newOrder.add(config.id());
        }
        Map<String, StorageConfig> newStorages = new LinkedHashMap<>(storages);
        newStorages.put(config.id(), config);
        Map<String, UnloadedSection> newUnloaded = new LinkedHashMap<>(unloaded);
        newUnloaded.remove(config.id());
        return new ConfigContents(topLevelKeys, reserved, newOrder, newStorages, newUnloaded);
    }

    /** Without the section {@code id}. */
    ConfigContents without(String id) {
        List<String> newOrder = new ArrayList<>(order);
        newOrder.remove(id);
        Map<String, StorageConfig> newStorages = new LinkedHashMap<>(storages);
        newStorages.remove(id);
        Map<String, UnloadedSection> newUnloaded = new LinkedHashMap<>(unloaded);
        newUnloaded.remove(id);
        return new ConfigContents(topLevelKeys, reserved, newOrder, newStorages, newUnloaded);
    }
}
