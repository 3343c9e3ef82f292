package dev.vsm.server.route;

import dev.vsm.api.VsmStorage;
import dev.vsm.server.access.Permissions;
import dev.vsm.spi.VolumeId;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** Finds a request's {@link Route} and calls it with the parameters pve's schema would let through. */
public final class Router {
    private final List<Route> routes;
    private final Supplier<VsmStorage> storage;

    public Router(List<Route> routes, Supplier<VsmStorage> storage) {
        this.routes = List.copyOf(routes);
        this.storage = storage;
    }

    /** A route and the parameters its path gave. */
    public static final class Match {
        private final Route route;
        private final Map<String, String> path;

        private Match(Route route, Map<String, String> path) {
            this.route = route;
            this.path = path;
        }

        /** Whether the endpoint reads a multipart body itself: the caller leaves it unread. */
        public boolean streamed() {
            return route.streamed;
        }
    }

    /** The route of {@code method} and the decoded path segments below {@code /api2/json}; 501 as pve when there is none. */
    public Match find(String method, List<String> segments) {
        for (Route route : routes) {
            Map<String, String> found = route.method.equals(method) ? route.match(segments) : null;
            if (found != null) {
                return new Match(route, found);
            }
        }
        throw new ApiException(
                501,
                "Method '" + method + " /api2/json/" + VolumeId.printable(String.join("/", segments))
                        + "' not implemented",
                null);
    }

    /**
     * Calls the route with the query's or body's parameters (those it does not take refused) and the path's;
     * {@code body} is the unread body of a {@link Match#streamed()} route, else null.
     */
    public Object call(Match match, Map<String, String> params, Permissions who, RequestBody body) {
        check(match.route, match.path, params);
        params.putAll(match.path);
        return match.route.endpoint.handle(new Call(params, who, storage, match.route, match.path, body));
    }

    /** Refuses a parameter the route does not take, or one the path gives with another value. */
    static void check(Route route, Map<String, String> path, Map<String, String> params) {
        for (Map.Entry<String, String> param : params.entrySet()) {
            String name = param.getKey();
            if (!route.params.contains(name) && !route.properties) {
                throw ApiException.badParameter(
                        name, "property is not defined in schema and the schema does not allow additional properties");
            }
            String inPath = path.get(name);
            if (inPath != null && !inPath.equals(param.getValue())) {
                throw ApiException.badParameter(name, "given twice, with different values");
            }
        }
    }
}
