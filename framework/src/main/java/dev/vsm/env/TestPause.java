package dev.vsm.env;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A test-only pause point: with the system property {@code vsm.test.pause-before} set to a
 * step's name, vsm stops itself with SIGSTOP once, just before the first such step (with
 * {@code <step>#<n>}, before the n-th one: the kill -9 rounds of volume chains stop at each of an
 * operation's steps in turn), as a stalled
 * process (a long GC pause, a frozen VM) would stop there; {@code SIGCONT} lets it go on. The
 * end-to-end tests use it to freeze a vsm between its last check and a destructive step and to
 * let its cluster session expire meanwhile (docs/cluster.md).
 *
 * <p>The steps: {@code move} (a file's no-replace rename, the publish of a new image),
 * {@code moved} (within it: the new name made, the old one not yet gone), {@code remove} (the
 * removal of a file that was identified), {@code unlink} (a plain removal), {@code replace} (a small file's
 * rewrite, between the creation of its temporary file and its mode's change) and the file name of a changing
 * external command ({@code lvremove}, {@code lvrename}, {@code lvcreate}, ...). Without the
 * property nothing happens. It can do nothing but stop this process: whoever can set vsm's JVM
 * options ({@code VSM_JAVA_OPTS}) can already do far more.
 *
 * <p>A test that runs vsm in its own JVM can instead arm an in-process crash ({@link #crashBefore}):
 * the step throws {@link Crash}, an {@link Error} that no handler of vsm's catches (they catch
 * {@link RuntimeException}s), so nothing runs after it but the {@code finally} blocks on the way
 * out, which release locks and change no storage: the storage is left as a kill -9 there leaves it.
 */
public final class TestPause {
    /** The system property naming the step to stop before. */
    public static final String PROPERTY = "vsm.test.pause-before";

    private static final AtomicBoolean PAUSED = new AtomicBoolean();
    private static final ConcurrentHashMap<String, AtomicInteger> SEEN = new ConcurrentHashMap<>();

    private static final AtomicReference<String> CRASH = new AtomicReference<>();
    private static final ConcurrentHashMap<String, AtomicInteger> CRASH_SEEN = new ConcurrentHashMap<>();

    private TestPause() {}

    /** What an armed step throws: a crash of vsm there, as far as the storage can tell. */
    public static final class Crash extends Error {
        private static final long serialVersionUID = 1L;

        Crash(String step) {
            super("test crash before '" + step + "'");
        }
    }

    /** Arms one in-process crash before {@code step} ({@code <step>#<n>}: its n-th time), counted from now. */
    public static void crashBefore(String step) {
        CRASH_SEEN.clear();
        CRASH.set(step);
    }

    /** Disarms a crash that did not happen. */
    public static void disarm() {
        CRASH.set(null);
    }

    /** Whether {@code step} is the one {@code wanted} names, at its n-th time (counted in {@code seen}). */
    private static boolean reached(String step, String wanted, ConcurrentHashMap<String, AtomicInteger> seen) {
        int hash = wanted.lastIndexOf('#');
        String name = hash < 0 ? wanted : wanted.substring(0, hash);
        if (!step.equals(name)) {
            return false;
        }
        int nth = hash < 0 ? 1 : Integer.parseInt(wanted.substring(hash + 1));
        return seen.computeIfAbsent(step, s -> new AtomicInteger()).incrementAndGet() == nth;
    }

    /** Stops this process (once) when the property names {@code step} (and this is its n-th time, if it says). */
    public static void before(String step) {
        String crash = CRASH.get();
        if (crash != null && reached(step, crash, CRASH_SEEN) && CRASH.compareAndSet(crash, null)) {
            throw new Crash(step);
        }
        String wanted = System.getProperty(PROPERTY);
        if (wanted == null || !reached(step, wanted, SEEN) || !PAUSED.compareAndSet(false, true)) {
            return;
        }
        // SIGSTOP sent to this thread: it is the thread that takes the signal and stops the others,
        // before its wait returns. (Sent to the process, the signal is taken by any of its threads,
        // and this one could run on for a moment after kill(1) exited.)
        String target = Long.toString(ProcessHandle.current().pid());
        try {
            Path self = Files.readSymbolicLink(Path.of("/proc/thread-self")); // <pid>/task/<tid>
            target = self.getFileName().toString();
        } catch (IOException | UnsupportedOperationException e) {
            // an older kernel: the process, as before
        }
        try {
            Process kill = new ProcessBuilder("/bin/kill", "-STOP", target)
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
