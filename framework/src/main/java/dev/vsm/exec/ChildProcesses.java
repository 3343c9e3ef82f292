package dev.vsm.exec;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.commons.exec.ProcessDestroyer;

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
    private static final LazyLogger LOG = new LazyLogger(ChildProcesses.class);
    private static final int GRACE_SECONDS = 3;
    private static final ChildProcesses JVM = new ChildProcesses();

    private final Set<Process> running = new LinkedHashSet<>();
    private boolean hookAdded;
    private boolean oneEndedOnSignal;
    private volatile boolean stopping;

    private ChildProcesses() {}

    /** The one registry of this JVM. */
    public static ChildProcesses jvm() {
        return JVM;
    }

    /** True once vsm has begun to shut down: no command may start any more. */
    public boolean stopping() {
        return stopping;
    }

    @Override
    public synchronized boolean add(Process process) {
        if (!hookAdded) {
            // the logger stopAll uses, made now as it was when it was made with the class: made
            // first inside the hook, it starts the logging backend while the JVM shuts down, and
            // once (StreamingTest, in a full run of the module; not again alone) the child outlived it
            LOG.get();
            Runtime.getRuntime().addShutdownHook(new Thread(this::stopAll, "vsm-stop-children"));
            hookAdded = true;
        }
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

    private void stopAll() {
        List<Process> children;
        synchronized (this) {
            stopping = true;
            children = new ArrayList<>(running);
        }
        for (Process child : children) {
            LOG.get()
                    .debug(
                            "stopping child {} ({})",
                            child.pid(),
                            child.info().command().orElse("?"));
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
