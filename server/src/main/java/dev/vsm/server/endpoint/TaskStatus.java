package dev.vsm.server.endpoint;

import dev.vsm.api.VsmStorage;
import dev.vsm.server.route.ApiException;
import dev.vsm.server.route.Call;
import dev.vsm.server.route.Route;
import dev.vsm.server.task.Task;
import dev.vsm.server.task.Tasks;
import dev.vsm.spi.VolumeId;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code GET /nodes/{node}/tasks/{upid}/status} and {@code .../log}, and {@code DELETE
 * /nodes/{node}/tasks/{upid}} (stop it): a task the server ran, seen and stopped only by the user
 * or token that started it, or by {@code root@pam} (and its tokens without privilege separation;
 * pve also lets whoever holds {@code Sys.Audit} on the node see it, and {@code Sys.Modify} stop
 * it; vsm has no such privileges).
 */
public final class TaskStatus {
    private static final String BASE = "/nodes/{node}/tasks/{upid}";
    /** pve's {@code upid_decode}. */
    private static final Pattern UPID = Pattern.compile(
            "UPID:[a-zA-Z0-9]([a-zA-Z0-9\\-]*[a-zA-Z0-9])?:[0-9A-Fa-f]{8}:[0-9A-Fa-f]{8,9}:[0-9A-Fa-f]{8}:[^:\\s]+:[^:\\s]*:[^:\\s]+:");

    private final Tasks tasks;

    public TaskStatus(Tasks tasks) {
        this.tasks = tasks;
    }

    public List<Route> routes() {
        return List.of(
                Route.get(BASE + "/status", Set.of("node", "upid"), this::status),
                Route.get(BASE + "/log", Set.of("node", "upid", "start", "limit"), this::log),
                Route.delete(BASE, Set.of("node", "upid"), this::stop));
    }

    private Object status(Call call) {
        return task(call).status();
    }

    private Object log(Call call) {
        Task task = task(call);
        return task.log(count(call, "start", 0), count(call, "limit", 50));
    }

    /**
     * pve's {@code stop_task}: an unknown UPID is a bad parameter, another's task needs pve's
     * {@code Sys.Modify}; {@code null}, also when the task has ended already.
     */
    private Object stop(Call call) {
        Task task = kept(call).orElseThrow(() -> ApiException.badParameter("upid", "no such task"));
        mine(call, task, "Sys.Modify");
        task.stop();
        return null;
    }

    /** The UPID's task, the caller's ({@code Sys.Audit}, pve's privilege to see another's). */
    private Task task(Call call) {
        Task task = kept(call)
                .orElseThrow(
                        () -> ApiException.failed("no such task '" + VolumeId.printable(call.required("upid")) + "'"));
        mine(call, task, "Sys.Audit");
        return task;
    }

    /** The UPID's task when it is well-formed (else 400), of this node, and kept. */
    private Optional<Task> kept(Call call) {
        String upid = call.required("upid");
        if (!UPID.matcher(upid).matches()) {
            throw ApiException.badParameter("upid", "unable to parse worker upid '" + VolumeId.printable(upid) + "'");
        }
        try (VsmStorage vsm = call.vsm()) {
            Nodes.check(call, vsm);
        }
        return tasks.find(upid);
    }

    /** Refuses (403, naming pve's {@code privilege} on the node) a task the caller may not see. */
    private static void mine(Call call, Task task, String privilege) {
        if (!sees(call, task)) {
            throw ApiException.forbidden("/nodes/" + call.required("node"), privilege);
        }
    }

    /** Whether the caller may see the task: it started it, or it is root. */
    static boolean sees(Call call, Task task) {
        return task.user().equals(call.subject()) || call.isRoot();
    }

    /** A count or a position ({@code start}, {@code limit}): {@link Call#integer}, at most {@link Integer#MAX_VALUE}. */
    static int count(Call call, String name, int absent) {
        return (int) Math.min(call.integer(name, absent), Integer.MAX_VALUE);
    }
}
