package dev.vsm.server.route;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One endpoint: a method, a path below {@code /api2/json} whose {@code {name}} segments are
 * parameters (a last {@code {name*}} takes the rest of the path, slashes and all: a volume id),
 * the query or form parameters it takes (pve refuses others), and what it does.
 */
public final class Route {
    /** What an endpoint does; it returns pve's {@code data}. */
    @FunctionalInterface
    public interface Endpoint {
        Object handle(Call call);
    }

    final String method;
    final List<String> pattern;
    final Set<String> params;
    final Endpoint endpoint;
    /** Whether the endpoint reads a multipart body itself ({@link Call#body()}). */
    final boolean streamed;
    /**
     * Whether it also takes parameters not in {@code params}: a storage type's properties, which
     * the endpoint has checked against that type's schema (pve's {@code createSchema}).
     */
    final boolean properties;

    private Route(
            String method, String path, Set<String> params, Endpoint endpoint, boolean streamed, boolean properties) {
        this.method = method;
        this.pattern = List.of(path.substring(1).split("/", -1));
        this.params = Set.copyOf(params);
        this.endpoint = endpoint;
        this.streamed = streamed;
        this.properties = properties;
    }

    private Route(String method, String path, Set<String> params, Endpoint endpoint, boolean streamed) {
        this(method, path, params, endpoint, streamed, false);
    }

    /**
     * This route, also taking any other parameter as a storage property ({@link Call#properties}):
     * the endpoint hands them to vsm, which refuses one the storage's type does not have.
     */
    public Route withProperties() {
        return new Route(method, "/" + String.join("/", pattern), params, endpoint, streamed, true);
    }

    public static Route get(String path, Set<String> params, Endpoint endpoint) {
        return new Route("GET", path, params, endpoint, false);
    }

    public static Route post(String path, Set<String> params, Endpoint endpoint) {
        return new Route("POST", path, params, endpoint, false);
    }

    public static Route put(String path, Set<String> params, Endpoint endpoint) {
        return new Route("PUT", path, params, endpoint, false);
    }

    /**
     * A {@code POST} whose {@code multipart/form-data} body the endpoint reads itself, as it comes
     * ({@link Call#body()}: an upload, never held in memory); its form fields are checked against
     * {@code params} by {@link Call#accept}.
     */
    public static Route upload(String path, Set<String> params, Endpoint endpoint) {
        return new Route("POST", path, params, endpoint, true);
    }

    public static Route delete(String path, Set<String> params, Endpoint endpoint) {
        return new Route("DELETE", path, params, endpoint, false);
    }

    /** The path's parameters when {@code segments} (decoded) match, else null. */
    Map<String, String> match(List<String> segments) {
        Map<String, String> found = new HashMap<>();
        for (int i = 0; i < pattern.size(); i++) {
            String p = pattern.get(i);
            if (p.startsWith("{") && p.endsWith("*}")) {
                if (i >= segments.size()) {
                    return null;
                }
                found.put(p.substring(1, p.length() - 2), String.join("/", segments.subList(i, segments.size())));
                return found;
            }
            if (i >= segments.size()) {
                return null;
            }
            if (p.startsWith("{")) {
                found.put(p.substring(1, p.length() - 1), segments.get(i));
            } else if (!p.equals(segments.get(i))) {
                return null;
            }
        }
        return segments.size() == pattern.size() ? found : null;
    }
}
