package dev.vsm.files;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * File-system probes that may hang (a stat on an unresponsive network mount), run with a time
 * limit as pve runs them in a forked child with a 2 s timeout.
 *
 * <p>The probes run on a pool of daemon threads that outlives each probe: a probe that answers
 * hands its thread to the next one, so {@code vsm status} of 50 storages (one probe each:
 * activation and capacity together) starts one thread for its 50 probes. A probe that hangs keeps
 * its thread, and the next probe gets a new one; a thread idle for a few seconds ends.
 */
public final class Probes {
    public static final Duration LIMIT = Duration.ofSeconds(2);

    private static final ExecutorService POOL =
            new ThreadPoolExecutor(0, Integer.MAX_VALUE, 5, TimeUnit.SECONDS, new SynchronousQueue<>(), task -> {
                Thread thread = new Thread(task, "vsm-file-probe");
                thread.setDaemon(true);
                return thread;
            });

    private Probes() {}

    /**
     * The probe's answer, or empty when it did not answer in time (its thread is then left
     * behind) or failed with a checked exception ({@link java.io.IOException}: a path that
     * cannot be read). What it throws unchecked (a {@link dev.vsm.spi.StorageException} that
     * names the problem) is thrown here.
     */
    public static <T> Optional<T> within(Duration limit, Callable<T> probe) {
        Future<T> answer = POOL.submit(probe);
        try {
            return Optional.ofNullable(answer.get(limit.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            answer.cancel(true);
            return Optional.empty();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException unchecked) {
                throw unchecked;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
