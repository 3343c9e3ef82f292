package dev.vsm.cli.command;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;

/** {@code vsm cluster status}: the ensemble, the session, the nodes seen, the locks held, the configuration's version. */
@Command(
        name = "status",
        description =
                "Show the ZooKeeper ensemble, this session, the nodes seen, the cluster locks held and the configuration version.")
public final class ClusterStatusCommand extends VsmCommand {
    @Override
    void execute() {
        var status = session().cluster().status();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ensemble", status.ensemble());
        m.put("session", status.session());
        m.put("node", status.node());
        m.put("config_version", status.configVersion());
        m.put("digest", status.configDigest());
        m.put(
                "nodes",
                status.nodes().stream()
                        .map(n -> {
                            Map<String, Object> node = new LinkedHashMap<>();
                            node.put("name", n.name());
                            node.put("last-seen", n.lastSeen());
                            node.put("processes", n.processes());
                            return node;
                        })
                        .toList());
        m.put(
                "locks",
                status.locks().stream()
                        .map(l -> Map.of("path", l.path(), "holder", l.holder()))
                        .toList());
        output.print(out(), m, o -> {
            o.printf("ensemble: %s%n", status.ensemble());
            o.printf("session:  %s%n", status.session());
            o.printf("node:     %s%n", status.node());
            o.printf(
                    "config:   %s%n",
                    status.configDigest() == null
                            ? "not initialised"
                            : (status.configVersion() == null
                                            ? "version unknown (cached)"
                                            : "version " + status.configVersion())
                                    + ", digest " + status.configDigest());
            o.printf("nodes:%s%n", status.nodes().isEmpty() ? " none seen" : "");
            for (var n : status.nodes()) {
                o.printf(
                        "  %-20s last-seen %-20s processes %s%n",
                        n.name(),
                        n.lastSeen() == null ? "unknown" : n.lastSeen(),
                        n.processes().isEmpty()
                                ? "none"
                                : String.join(
                                        ",",
                                        n.processes().stream()
                                                .map(String::valueOf)
                                                .toList()));
            }
            o.printf("locks:%s%n", status.locks().isEmpty() ? " none held" : "");
            for (var l : status.locks()) {
                o.printf("  %s  %s%n", l.path(), l.holder());
            }
        });
    }
}
