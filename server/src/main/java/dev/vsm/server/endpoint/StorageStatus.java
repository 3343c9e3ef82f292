package dev.vsm.server.endpoint;

import dev.vsm.api.StatusQuery;
import dev.vsm.api.StorageState;
import dev.vsm.api.VsmStorage;
import dev.vsm.server.access.Privilege;
import dev.vsm.server.route.ApiException;
import dev.vsm.server.route.Call;
import dev.vsm.server.route.Route;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.VolumeFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** {@code GET /nodes/{node}/storage} and {@code .../{storage}/status}: what {@code vsm status} says. */
public final class StorageStatus {
    public List<Route> routes() {
        return List.of(
                Route.get(
                        "/nodes/{node}/storage",
                        Set.of("node", "content", "enabled", "format", "storage", "target"),
                        this::index),
                Route.get("/nodes/{node}/storage/{storage}/status", Set.of("node", "storage"), this::status));
    }

    /** pve lists only the storages the caller has Datastore.Audit or AllocateSpace on. */
    private Object index(Call call) {
        String storage = call.param("storage") == null ? null : call.storage("storage");
        Set<ContentType> content = call.contentList("content");
        boolean enabled = call.bool("enabled");
        boolean formats = call.bool("format");
        String target = call.param("target");
        try (VsmStorage vsm = call.vsm()) {
            Nodes.check(call, vsm);
            if (storage != null) {
                exists(vsm, storage);
            }
            return vsm
                    .status(StatusQuery.all()
                            .storage(storage)
                            .content(content)
                            .enabledOnly(enabled)
                            .target(target))
                    .stream()
                    .filter(s -> call.may("/storage/" + s.storage(), Privilege.AUDIT, Privilege.ALLOCATE_SPACE))
                    .map(s -> row(s, true, formats))
                    .toList();
        }
    }

    private Object status(Call call) {
        String storage = call.storage("storage");
        call.check("/storage/" + storage, Privilege.AUDIT, Privilege.ALLOCATE_SPACE);
        try (VsmStorage vsm = call.vsm()) {
            Nodes.check(call, vsm);
            exists(vsm, storage);
            StorageState s = vsm.status(StatusQuery.all().storage(storage)).get(0);
            Map<String, Object> row = row(s, false, false);
            row.remove("storage");
            row.remove("used_fraction");
            return row;
        }
    }

    static void exists(VsmStorage vsm, String storage) {
        if (vsm.configuration().stream().noneMatch(c -> c.id().equals(storage))) {
            throw ApiException.badParameter("storage", "No such storage.");
        }
    }

    private static Map<String, Object> row(StorageState s, boolean fraction, boolean formats) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("storage", s.storage());
        m.put("type", s.type());
        m.put("content", s.content().stream().map(ContentType::id).sorted().collect(Collectors.joining(",")));
        m.put("active", s.active() ? 1 : 0);
        m.put("enabled", s.enabled() ? 1 : 0);
        m.put("shared", s.shared() ? 1 : 0);
        m.put("total", s.total());
        m.put("used", s.used());
        m.put("avail", s.avail());
        if (fraction && s.total() > 0) {
            m.put("used_fraction", (double) s.used() / s.total());
        }
        if (formats && s.enabled() && s.defaultFormat() != null) {
            List<String> supported =
                    s.formats().stream().map(VolumeFormat::id).sorted().toList();
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("default", s.defaultFormat().id());
            f.put("supported", supported);
            m.put("formats", f);
            Map<String, Integer> valid = new TreeMap<>();
            supported.forEach(id -> valid.put(id, 1));
            m.put("format", List.of(valid, s.defaultFormat().id()));
        }
        return m;
    }
}
