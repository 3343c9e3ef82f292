package dev.vsm.transfer;

import dev.vsm.exec.ChildProcesses;
import dev.vsm.spi.InterruptedCommandException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C or SIGTERM while vsm itself moves bytes (no child process to stop): a shutdown hook
 * raises a flag that the copy loop checks with {@link #check()}, and holds the JVM until the
 * transfer has cleaned up after itself ({@link #close()}), at most {@value #WAIT_SECONDS} s.
 *
 * <p>The shutdown hooks run at once, in no order: the one that stops vsm's children (cstream
 * behind {@code --bwlimit}) may end a stream before this one raised its flag, and the copy then
 * sees an early end or a closed pipe ({@code Stream closed}) first. So {@link #check()} also
 * reads the children's flag, which is raised before any child is stopped, and the copy loops
 * check again when a stream ends or fails: a stop is reported as a stop whichever hook ran first.
 */
final class Interruption implements AutoCloseable {
    private static final int WAIT_SECONDS = 8;

    private final String what;
    private final CountDownLatch done = new CountDownLatch(1);
    private final Thread hook;
    private volatile boolean stopping;

    private Interruption(String what) {
        this.what = what;
        this.hook = new Thread(this::stop, "vsm-stop-transfer");
    }

    /** Watches for vsm being stopped until {@link #close()}. */
    static Interruption watch(String what) {
        Interruption i = new Interruption(what);
        Runtime.getRuntime().addShutdownHook(i.hook);
        return i;
    }

    private void stop() {
        stopping = true;
        try {
            done.await(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Throws when vsm is being stopped. The shutdown hooks run in no fixed order: the one that
     * stops vsm's children (a {@code cstream} the stream comes through) may end the stream before
     * this one raises its flag, so a short or failed read is checked against both.
     */
    void check() {
        if (stopping || ChildProcesses.jvm().stopping()) {
            throw new InterruptedCommandException(what + " was stopped (vsm is being stopped)");
        }
    }

    /** The transfer is over (and cleaned up, if it failed): the JVM may go. */
    @Override
    public void close() {
        done.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down already: the hook is running and now returns
        }
    }
}
