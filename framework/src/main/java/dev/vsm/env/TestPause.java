package dev.vsm.env;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A test-only pause point: with the system property {@code vsm.test.pause-before} set to a
 * step's name, vsm stops itself with SIGSTOP once, just before the first such step, as a stalled
 * process (a long GC pause, a frozen VM) would stop there; {@code SIGCONT} lets it go on. The
 * end-to-end tests use it to freeze a vsm between its last check and a destructive step and to
 * let its cluster session expire meanwhile (docs/cluster.md).
 *
 * <p>The steps: {@code move} (a file's no-replace rename, the publish of a new image),
 * {@code remove} (the removal of a file that was identified), {@code replace} (a small file's
 * rewrite, between the creation of its temporary file and its mode's change) and the file name of a changing
 * external command ({@code lvremove}, {@code lvrename}, {@code lvcreate}, ...). Without the
 * property nothing happens. It can do nothing but stop this process: whoever can set vsm's JVM
 * options ({@code VSM_JAVA_OPTS}) can already do far more.
 */
public final class TestPause {
    /** The system property naming the step to stop before. */
    public static final String PROPERTY = "vsm.test.pause-before";

    private static final AtomicBoolean PAUSED = new AtomicBoolean();

    private TestPause() {}

    /** Stops this process (once) when the property names {@code step}. */
    public static void before(String step) {
        if (!step.equals(System.getProperty(PROPERTY)) || !PAUSED.compareAndSet(false, true)) {
            return;
        }
        try {
            Process kill = new ProcessBuilder(
                            "/bin/kill",
                            "-STOP",
                            Long.toString(ProcessHandle.current().pid()))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            kill.waitFor(30, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new IllegalStateException("test pause before '" + step + "' failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
