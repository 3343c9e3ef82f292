package dev.vsm.engine.cluster;

import java.util.List;

/**
 * What {@code vsm cluster status} shows.
 *
 * @param ensemble      the connect string
 * @param session       CONNECTED, SUSPENDED, LOST or {@code not connected}
 * @param node          this node
 * @param configVersion the version of {@code <root>/config}, or null when unknown (no connection, not initialised)
 * @param configDigest  the SHA-1 of its bytes, or null
 * @param nodes         the nodes that ever connected
 * @param locks         the cluster locks held now
 */
public record ClusterStatus(
        String ensemble,
        String session,
        String node,
        Integer configVersion,
        String configDigest,
        List<NodeSeen> nodes,
        List<LockHeld> locks) {
    public ClusterStatus {
        nodes = List.copyOf(nodes);
        locks = List.copyOf(locks);
    }

    /**
     * @param lastSeen  ISO-8601, or null when unknown
     * @param processes the pids of its vsm processes connected now
     */
    public record NodeSeen(String name, String lastSeen, List<Long> processes) {
        public NodeSeen {
            processes = List.copyOf(processes);
        }
    }

    /** @param holder the lock znode's data, {@code <node> pid <pid>} */
    public record LockHeld(String path, String holder) {}
}
