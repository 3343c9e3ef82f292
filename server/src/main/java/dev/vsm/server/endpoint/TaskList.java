package dev.vsm.server.endpoint;

import dev.vsm.api.VsmStorage;
import dev.vsm.server.route.ApiException;
import dev.vsm.server.route.Call;
import dev.vsm.server.route.Counted;
import dev.vsm.server.route.Route;
import dev.vsm.server.task.Task;
import dev.vsm.server.task.Tasks;
import dev.vsm.spi.VolumeId;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;

/**
 * {@code GET /nodes/{node}/tasks}: pve's task list, newest first, of the tasks the caller may see
 * (its own, or every one for {@code root@pam}, as {@link TaskStatus}), with pve's filters:
 * {@code source} ({@code archive}, the default: those that ended; {@code active}; {@code all}),
 * {@code userfilter} (a part of the user, any case), {@code typefilter}, {@code vmid} (the id),
 * {@code errors}, {@code statusfilter} ({@code ok}, {@code error}; vsm's tasks end with no
 * warnings), {@code since} and {@code until} (the start, Unix seconds), then {@code start} and
 * {@code limit} (default 50); beside the page, {@code total}: how many match before {@code start} and
 * {@code limit}, as pve counts them.
 */
public final class TaskList {
    private static final Set<String> STATUSES = Set.of("ok", "warning", "error", "unknown");

    private final Tasks tasks;

    public TaskList(Tasks tasks) {
        this.tasks = tasks;
    }

    public List<Route> routes() {
        return List.of(Route.get(
                "/nodes/{node}/tasks",
                Set.of(
                        "node",
                        "start",
                        "limit",
                        "userfilter",
                        "typefilter",
                        "vmid",
                        "errors",
                        "source",
                        "since",
                        "until",
                        "statusfilter"),
                this::index));
    }

    private Object index(Call call) {
        try (VsmStorage vsm = call.vsm()) {
            Nodes.check(call, vsm);
        }
        Predicate<Task> shown = task -> TaskStatus.sees(call, task);
        String source = call.param("source") == null ? "archive" : call.param("source");
        switch (source) {
            case "archive" -> shown = shown.and(task -> !task.running());
            case "active" -> shown = shown.and(Task::running);
            case "all" -> {}
            default ->
                throw ApiException.badParameter(
                        "source",
                        "value '" + VolumeId.printable(source)
                                + "' does not have a value in the enumeration 'archive, active, all'");
        }
        String user = call.param("userfilter");
        if (user != null) {
            String part = user.toLowerCase(Locale.ROOT);
            shown = shown.and(task -> task.user().toLowerCase(Locale.ROOT).contains(part));
        }
        String type = call.param("typefilter");
        if (type != null) {
            shown = shown.and(task -> task.type().equals(type));
        }
        Integer vmid = call.vmid("vmid");
        if (vmid != null) {
            shown = shown.and(task -> task.id().equals(vmid.toString()));
        }
        if (call.bool("errors")) {
            shown = shown.and(task -> !task.running() && !"OK".equals(task.exitstatus()));
        }
        Set<String> statuses = statuses(call.param("statusfilter"));
        if (statuses != null) {
            shown = shown.and(task -> !task.running() && statuses.contains(statusType(task.exitstatus())));
        }
        long since = call.integer("since", 0);
        long until = call.integer("until", Long.MAX_VALUE);
        shown = shown.and(task -> task.starttime() >= since && task.starttime() <= until);
        int start = TaskStatus.count(call, "start", 0);
        int limit = TaskStatus.count(call, "limit", 50);
        List<Task> matching = tasks.newestFirst().stream().filter(shown).toList();
        return new Counted(
                matching.stream().skip(start).limit(limit).map(Task::listed).toList(), matching.size());
    }

    /** pve's {@code pve-task-status-type-list}; null when absent. */
    private static Set<String> statuses(String value) {
        if (value == null) {
            return null;
        }
        Set<String> asked = new HashSet<>();
        for (String s : value.split("[,;\\s]+", -1)) {
            if (!STATUSES.contains(s)) {
                throw ApiException.badParameter(
                        "statusfilter",
                        "invalid format - value '" + VolumeId.printable(s) + "' is not ok, warning, error or unknown");
            }
            asked.add(s);
        }
        return asked;
    }

    /** pve's {@code task_status_type}: {@code ok}, or {@code error} (vsm's tasks end without warnings). */
    private static String statusType(String exitstatus) {
        return "OK".equals(exitstatus) ? "ok" : "error";
    }
}
