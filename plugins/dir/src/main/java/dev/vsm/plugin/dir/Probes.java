package dev.vsm.plugin.dir;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * File-system probes that may hang (a stat on an unresponsive network mount), run with a time
 * limit as pve runs them in a forked child with a 2 s timeout.
 */
final class Probes {
    static final Duration LIMIT = Duration.ofSeconds(2);

    private Probes() {}

    /** The probe's answer, or empty when it failed or did not answer in time (its thread is then left behind). */
    static <T> Optional<T> within(Duration limit, Callable<T> probe) {
        FutureTask<T> task = new FutureTask<>(probe);
        Thread thread = new Thread(task, "vsm-dir-probe");
        thread.setDaemon(true);
        thread.start();
        try {
            return Optional.ofNullable(task.get(limit.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            thread.interrupt();
            return Optional.empty();
        } catch (ExecutionException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
