package dev.vsm.server.task;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The tasks the server ran, kept in memory for its life, the newest {@value #MAX} of them (the
 * oldest that ended are forgotten first). Each gets a UPID of pve's format,
 * {@code UPID:NODE:PID:PSTART:STARTTIME:TYPE:ID:USER:} with the numbers as 8 upper-case hex
 * digits: {@code PID} is the server's process, and {@code PSTART}, which in pve is the worker
 * process's start, is the task's number in the server's life, so that two tasks started in the same
 * second have different UPIDs. Thread-safe.
 */
public final class Tasks {
    /** How many tasks are kept. */
    public static final int MAX = 1024;

    private final long pid = ProcessHandle.current().pid();
    private final Map<String, Task> tasks = new LinkedHashMap<>();
    private long count;

    /** A new running task of pve's {@code type} and {@code id} (may be empty) that {@code user} started. */
    public synchronized Task start(String node, String type, String id, String user) {
        count++;
        Task task = new Task(node, pid, count, Instant.now().getEpochSecond(), type, id, user);
        tasks.put(task.upid(), task);
        if (tasks.size() > MAX) {
            Iterator<Task> it = tasks.values().iterator();
            while (it.hasNext() && tasks.size() > MAX) {
                if (!it.next().running()) {
                    it.remove();
                }
            }
        }
        return task;
    }

    /** The tasks kept, the newest first. */
    public synchronized List<Task> newestFirst() {
        List<Task> all = new ArrayList<>(tasks.values());
        Collections.reverse(all);
        return all;
    }

    /** The task of this UPID, while it is kept. */
    public synchronized Optional<Task> find(String upid) {
        return Optional.ofNullable(tasks.get(upid));
    }
}
