package dev.vsm.server.endpoint;

import dev.vsm.api.NewStorage;
import dev.vsm.api.StorageUpdate;
import dev.vsm.api.VsmStorage;
import dev.vsm.server.access.AccessFile;
import dev.vsm.server.access.Privilege;
import dev.vsm.server.route.ApiException;
import dev.vsm.server.route.Call;
import dev.vsm.server.route.Route;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.VolumeId;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code /storage}: the configuration, in pve's shape (pve's API2::Storage::Config), read and
 * changed through {@link VsmStorage} with {@code vsm add|set|remove}'s rules.
 */
public final class StorageConfigs {
    private final AccessFile access;

    /** {@code access}: where a removed storage's grants are removed from, as pve's {@code remove_storage_access}. */
    public StorageConfigs(AccessFile access) {
        this.access = access;
    }

    public List<Route> routes() {
        return List.of(
                Route.get("/storage", Set.of("type"), this::index),
                Route.get("/storage/{storage}", Set.of("storage"), this::read),
                Route.post("/storage", Set.of("storage", "type"), this::create).withProperties(),
                Route.put("/storage/{storage}", Set.of("storage", "delete", "digest"), this::update)
                        .withProperties(),
                Route.delete("/storage/{storage}", Set.of("storage"), this::remove));
    }

    /**
     * The storages the caller may see (Datastore.Audit or AllocateSpace on each), of one type if
     * asked: a type no plugin provides is refused, as pve's enumeration of its types refuses it.
     */
    private Object index(Call call) {
        String type = call.param("type");
        try (VsmStorage vsm = call.vsm()) {
            if (type != null && !vsm.storageTypes().contains(type)) {
                throw ApiException.badParameter(
                        "type",
                        "value '" + VolumeId.printable(type) + "' does not have a value in the enumeration '"
                                + String.join(", ", vsm.storageTypes()) + "'");
            }
            String digest = vsm.configDigest();
            return vsm.configuration().stream()
                    .filter(c -> type == null || c.type().equals(type))
                    .filter(c -> call.may("/storage/" + c.id(), Privilege.AUDIT, Privilege.ALLOCATE_SPACE))
                    .map(c -> section(c, digest))
                    .toList();
        }
    }

    /** One storage's configuration: pve asks for Datastore.Allocate on it. */
    private Object read(Call call) {
        String id = call.storage("storage");
        call.check("/storage/" + id, Privilege.ALLOCATE);
        try (VsmStorage vsm = call.vsm()) {
            return vsm.configuration().stream()
                    .filter(c -> c.id().equals(id))
                    .findFirst()
                    .map(c -> section(c, vsm.configDigest()))
                    .orElseThrow(() -> ApiException.failed("storage '" + VolumeId.printable(id) + "' does not exist"));
        }
    }

    /**
     * pve's {@code create}: {@code vsm add} with the form's properties; {@code {"storage", "type"}}.
     * pve asks Datastore.Allocate on {@code /storage}; vsm asks it on the new storage's path too,
     * so that a grant that takes it away there is kept.
     */
    private Object create(Call call) {
        String id = call.storage("storage");
        String type = call.required("type");
        checkAllocate(call, id);
        Map<String, String> properties = call.properties();
        // pve: an empty node list is no list (SectionConfig never writes an empty one)
        properties.remove("nodes", "");
        try (VsmStorage vsm = call.vsm()) {
            vsm.addStorage(NewStorage.of(type, id).properties(properties));
        }
        return created(id, type);
    }

    /** pve's answer to a create or an update. */
    private static Map<String, Object> created(String id, String type) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("storage", id);
        m.put("type", type);
        return m;
    }

    /** pve's {@code update}: {@code vsm set} with {@code delete} and {@code digest}; {@code {"storage", "type"}}. */
    private Object update(Call call) {
        String id = call.storage("storage");
        checkAllocate(call, id);
        String delete = call.param("delete");
        StorageUpdate update = StorageUpdate.of(id)
                .set(call.properties())
                .delete(delete == null ? List.of() : List.of(delete))
                .digest(call.param("digest"));
        try (VsmStorage vsm = call.vsm()) {
            String type =
                    vsm.updateStorage(update).after().map(StorageConfig::type).orElseThrow();
            return created(id, type);
        }
    }

    /** pve's {@code delete}: {@code vsm remove}, then the grants on the storage's path go (pve's {@code remove_storage_access}); null. */
    private Object remove(Call call) {
        String id = call.storage("storage");
        checkAllocate(call, id);
        try (VsmStorage vsm = call.vsm()) {
            vsm.removeStorage(id);
        }
        access.removePath("/storage/" + id);
        return null;
    }

    /** Datastore.Allocate on {@code /storage} (pve's check for each change) and on {@code /storage/{storage}}. */
    private static void checkAllocate(Call call, String id) {
        call.check("/storage", Privilege.ALLOCATE);
        call.check("/storage/" + id, Privilege.ALLOCATE);
    }

    /** pve's section: {@code storage}, {@code type}, {@code digest} and the properties, lists comma-joined, booleans 0/1. */
    static Map<String, Object> section(StorageConfig c, String digest) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("storage", c.id());
        m.put("type", c.type());
        m.put("digest", digest);
        c.properties().forEach((k, v) -> m.put(k, pveValue(v)));
        return m;
    }

    static Object pveValue(Object v) {
        if (v instanceof Boolean b) {
            return b ? 1 : 0;
        }
        if (v instanceof Collection<?> list) {
            return list.stream().map(String::valueOf).collect(Collectors.joining(","));
        }
        if (v instanceof Map<?, ?> map) {
            return map.entrySet().stream()
                    .map(e -> e.getKey() + "=" + pveValue(e.getValue()))
                    .collect(Collectors.joining(","));
        }
        return v;
    }
}
