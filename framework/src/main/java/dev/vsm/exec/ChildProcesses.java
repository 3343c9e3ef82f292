package dev.vsm.exec;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.commons.exec.ProcessDestroyer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The external commands vsm is running, stopped when vsm is (Ctrl-C, SIGTERM): a child never
 * outlives vsm, and once vsm is shutting down no new command starts. A JVM shutdown hook, added
 * with the first child, sends each running child SIGTERM and, if it has not ended after
 * {@value #GRACE_SECONDS} s, SIGKILL.
 *
 * <p>Whoever waits for a stopped child sees it end on a signal and gets an
 * {@link dev.vsm.spi.InterruptedCommandException} from the runner, so nothing that was to
 * follow it runs in the moments before the JVM halts.
 */
public final class ChildProcesses implements ProcessDestroyer {
    private static final Logger LOG = LoggerFactory.getLogger(ChildProcesses.class);
    private static final int GRACE_SECONDS = 3;
    private static final ChildProcesses JVM = new ChildProcesses();

    private final Set<Process> running = new LinkedHashSet<>();
    private boolean hookAdded;
    /** Starts between {@link #beforeStart} and {@link #add} (or {@link #afterStart}), and whether this thread has one. */
    private int starting;

    private final ThreadLocal<Boolean> startingHere = new ThreadLocal<>();
    private boolean oneEndedOnSignal;
    private volatile boolean stopping;

    private ChildProcesses() {}

    /** A registry of its own, for tests of the shutdown hook's part ({@link #stopAll}); vsm has one ({@link #jvm}). */
    static ChildProcesses newRegistry() {
        return new ChildProcesses();
    }

    /** The one registry of this JVM. */
    public static ChildProcesses jvm() {
        return JVM;
    }

    /** True once vsm has begun to shut down: no command may start any more. */
    public boolean stopping() {
        return stopping;
    }

    /**
     * Called before a child is started (then {@link #afterStart}): puts the shutdown hook in place,
     * once, and counts the start as in flight. commons-exec registers a
     * child ({@link #add}) only after it has started pumping the child's output, so a SIGTERM in
     * between found a hook that knew no child, and the JVM halted with the child running (seen
     * once StreamingTest's SIGTERM came while the hook's logger was being made there). The hook
     * now waits for the starts in flight to reach {@link #add}, which stops a child started
     * once the shutdown has begun.
     */
    public synchronized void beforeStart() {
        if (!hookAdded) {
            Runtime.getRuntime().addShutdownHook(new Thread(this::stopAll, "vsm-stop-children"));
            hookAdded = true;
        }
        starting++;
        startingHere.set(Boolean.TRUE);
    }

    /** After a start, whether or not it reached {@link #add} (it failed): it is no longer in flight. */
    public synchronized void afterStart() {
        started();
    }

    private void started() {
        if (Boolean.TRUE.equals(startingHere.get())) {
            startingHere.set(Boolean.FALSE);
            starting--;
            notifyAll();
        }
    }

    @Override
    public synchronized boolean add(Process process) {
        started();
        if (stopping) {
            process.destroy(); // started in the instant the shutdown began
        }
        return running.add(process);
    }

    @Override
    public synchronized boolean remove(Process process) {
        if (!process.isAlive() && endedOnSignal(process.exitValue())) {
            oneEndedOnSignal = true;
        }
        return running.remove(process);
    }

    /**
     * True while a child runs, or once one has ended on SIGINT or SIGTERM: then a failure is on
     * its way up whose message must be printed before the JVM halts. (Ctrl-C reaches the child
     * from the terminal at the same time as vsm, so it may already be gone when the shutdown
     * hooks start.)
     */
    public synchronized boolean childRunningOrStopped() {
        return !running.isEmpty() || oneEndedOnSignal;
    }

    /** How Java reports a child killed by a signal: 128 + its number; 2 is SIGINT, 15 SIGTERM. */
    static boolean endedOnSignal(int exitValue) {
        return exitValue == 128 + 2 || exitValue == 128 + 15;
    }

    @Override
    public synchronized int size() {
        return running.size();
    }

    void stopAll() {
        List<Process> children;
        synchronized (this) {
            stopping = true;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(GRACE_SECONDS);
            try {
                // a child just started reaches add() within moments, and add() then stops it
                for (long left = GRACE_SECONDS * 1000L;
                        starting > 0 && left > 0;
                        left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) {
                    wait(left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            children = new ArrayList<>(running);
        }
        for (Process child : children) {
            if (LOG.isDebugEnabled()) {
                LOG.debug(
                        "stopping child {} ({})",
                        child.pid(),
                        child.info().command().orElse("?"));
            }
            child.destroy();
        }
        for (Process child : children) {
            try {
                if (!child.waitFor(GRACE_SECONDS, TimeUnit.SECONDS)) {
                    child.destroyForcibly().waitFor(GRACE_SECONDS, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
