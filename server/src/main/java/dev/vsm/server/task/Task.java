package dev.vsm.server.task;

import dev.vsm.spi.StorageException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One piece of work the server did for a request, as pve's tasks are seen ({@code GET
 * /nodes/{node}/tasks/{upid}/status} and {@code /log}): its UPID's fields, whether it still runs,
 * how it ended, and its log, whose last line is pve's {@code TASK OK} or {@code TASK ERROR: ...}.
 * Thread-safe.
 */
public final class Task {
    /** A task's log keeps at most this many lines (the last one says how it ended). */
    static final int MAX_LINES = 1000;

    /** pve's exit status of a task that was stopped while it ran (its worker's words for SIGTERM). */
    public static final String INTERRUPTED = "received interrupt";

    private final String upid;
    private final String node;
    private final long pid;
    private final long pstart;
    private final long starttime;
    private final String type;
    private final String id;
    private final String user;
    private final List<String> log = new ArrayList<>();
    private String exitstatus;
    private long endtime;
    /** The thread doing the work, while it does. */
    private Thread worker;

    private boolean stopping;

    Task(String node, long pid, long pstart, long starttime, String type, String id, String user) {
        this.node = node;
        this.pid = pid;
        this.pstart = pstart;
        this.starttime = starttime;
        this.type = type;
        this.id = id;
        this.user = user;
        this.upid = String.format("UPID:%s:%08X:%08X:%08X:%s:%s:%s:", node, pid, pstart, starttime, type, id, user);
    }

    public String upid() {
        return upid;
    }

    /** The user or token that started it: the only one, with {@code root@pam}, who sees it. */
    public String user() {
        return user;
    }

    /** Adds a line to the log. */
    public synchronized void log(String line) {
        if (log.size() < MAX_LINES - 1) {
            log.add(line);
        }
    }

    /** A task's work, given the task to log to. */
    @FunctionalInterface
    public interface Work {
        void run(Task task);
    }

    /**
     * Does the task's work and ends the task by how it ended, so that none stays running: {@code
     * TASK OK} when it returns, the message of a {@link StorageException} (the work's own failure,
     * as pve's), and anything else the task's failure too before it goes on up (a broken request,
     * a bug: the server answers it). A work that {@link #stop} interrupted and that failed for it
     * ends as {@link #INTERRUPTED}, its own error a line of the log before; one that finished all
     * the same ends well. The thread's interrupt does not outlive the work.
     *
     * @return the task's UPID
     */
    public String run(Work work) {
        synchronized (this) {
            if (stopping) {
                end(INTERRUPTED);
                log.add("TASK ERROR: " + INTERRUPTED);
                return upid;
            }
            worker = Thread.currentThread();
        }
        try {
            work.run(this);
            ok();
        } catch (StorageException e) {
            failed(e.getMessage());
        } catch (RuntimeException | Error e) {
            failed(e.getMessage() == null || e.getMessage().isBlank() ? e.toString() : e.getMessage());
            throw e;
        } finally {
            synchronized (this) {
                worker = null;
            }
            // the request's thread goes back to the server's pool: a stop that came late must not reach its next
            // request
            Thread.interrupted();
        }
        return upid;
    }

    /**
     * Stops the task as pve's {@code DELETE /nodes/{node}/tasks/{upid}} does: the thread doing its
     * work is interrupted, so that a wait for a lock, a child process (stopped, as at vsm's own
     * shutdown) or a channel's I/O ends, and the work undoes what it began as it does on any
     * failure. Nothing when it has ended.
     */
    public synchronized void stop() {
        if (exitstatus != null || stopping) {
            return;
        }
        stopping = true;
        if (worker != null) {
            worker.interrupt();
        }
    }

    /** It ended well: {@code TASK OK}. */
    public synchronized void ok() {
        end("OK");
        log.add("TASK OK");
    }

    /** It failed with {@code message}: {@code TASK ERROR: message}; when it was stopped, {@link #INTERRUPTED}, the message before it. */
    public synchronized void failed(String message) {
        String line = message.strip();
        if (stopping) {
            log(line);
            line = INTERRUPTED;
        }
        end(line);
        log.add("TASK ERROR: " + line);
    }

    private void end(String status) {
        if (exitstatus != null) {
            throw new IllegalStateException("task " + upid + " has ended already");
        }
        exitstatus = status;
        endtime = Instant.now().getEpochSecond();
    }

    public synchronized boolean running() {
        return exitstatus == null;
    }

    /** How it ended ({@code OK} or the error); null while it runs. */
    public synchronized String exitstatus() {
        return exitstatus;
    }

    /** pve's task type ({@code imgcopy}, {@code prunebackups}). */
    public String type() {
        return type;
    }

    /** pve's task id (a guest's or a storage's; may be empty). */
    public String id() {
        return id;
    }

    /** When it started, Unix seconds. */
    public long starttime() {
        return starttime;
    }

    /** pve's entry of the task list: the UPID's fields and, once ended, {@code endtime} and {@code status} (the exit status). */
    public synchronized Map<String, Object> listed() {
        Map<String, Object> m = fields();
        if (exitstatus != null) {
            m.put("endtime", endtime);
            m.put("status", exitstatus);
        }
        return m;
    }

    private Map<String, Object> fields() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("upid", upid);
        m.put("node", node);
        m.put("pid", pid);
        m.put("pstart", pstart);
        m.put("starttime", starttime);
        m.put("type", type);
        m.put("id", id);
        m.put("user", user);
        return m;
    }

    /** pve's task status: {@code status} running or stopped, then {@code exitstatus} once stopped, and the UPID's fields. */
    public synchronized Map<String, Object> status() {
        Map<String, Object> m = fields();
        m.put("status", exitstatus == null ? "running" : "stopped");
        if (exitstatus != null) {
            m.put("exitstatus", exitstatus);
        }
        return m;
    }

    /** pve's task log: {@code limit} lines {@code {n, t}} from line {@code start} (0 the first; {@code n} counts from 1). */
    public synchronized List<Map<String, Object>> log(int start, int limit) {
        List<Map<String, Object>> lines = new ArrayList<>();
        for (int i = start; i < log.size() && lines.size() < limit; i++) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("n", i + 1);
            m.put("t", log.get(i));
            lines.add(m);
        }
        return lines;
    }

    /** How many lines the log has (pve's {@code total}). */
    public synchronized int lines() {
        return log.size();
    }
}
