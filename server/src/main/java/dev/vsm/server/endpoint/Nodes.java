package dev.vsm.server.endpoint;

import dev.vsm.api.VsmStorage;
import dev.vsm.server.route.ApiException;
import dev.vsm.server.route.Call;
import dev.vsm.server.route.Route;
import dev.vsm.spi.VolumeId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code GET /version} and {@code GET /nodes}: what any authenticated caller may read. */
public final class Nodes {
    private final String vsmVersion;
    private final String sslFingerprint;

    public Nodes(String vsmVersion, String sslFingerprint) {
        this.vsmVersion = vsmVersion;
        this.sslFingerprint = sslFingerprint;
    }

    public List<Route> routes() {
        return List.of(Route.get("/version", Set.of(), this::version), Route.get("/nodes", Set.of(), this::nodes));
    }

    /**
     * pve's version object. {@code version} is the pve release whose storage API vsm serves (clients
     * compare it to decide what to send); {@code repoid} and {@code vsm} name vsm's own.
     */
    private Object version(Call call) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("version", "9.1.0");
        v.put("release", "9.1");
        v.put("repoid", "vsm-" + vsmVersion);
        v.put("vsm", vsmVersion);
        return v;
    }

    private Object nodes(Call call) {
        try (VsmStorage vsm = call.vsm()) {
            String node = vsm.nodeName();
            Map<String, Object> n = new LinkedHashMap<>();
            n.put("node", node);
            n.put("status", "online");
            n.put("type", "node");
            n.put("id", "node/" + node);
            n.put("level", "");
            n.put("ssl_fingerprint", sslFingerprint);
            return List.of(n);
        }
    }

    /** Checks the path's {@code {node}}: this node is the only one served (pve would forward to another). */
    static void check(Call call, VsmStorage vsm) {
        String node = call.required("node");
        if (!node.equals(vsm.nodeName())) {
            throw ApiException.badParameter("node", "no such cluster node '" + VolumeId.printable(node) + "'");
        }
    }
}
