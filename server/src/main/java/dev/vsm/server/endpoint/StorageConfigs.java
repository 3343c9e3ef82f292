package dev.vsm.server.endpoint;

import dev.vsm.api.VsmStorage;
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

/** {@code GET /storage} and {@code GET /storage/{storage}}: the configuration, in pve's shape. */
public final class StorageConfigs {
    public List<Route> routes() {
        return List.of(
                Route.get("/storage", Set.of("type"), this::index),
                Route.get("/storage/{storage}", Set.of("storage"), this::read));
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
