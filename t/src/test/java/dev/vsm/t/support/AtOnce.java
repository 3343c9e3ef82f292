package dev.vsm.t.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Calls run at once, each on a thread of its own: requests that {@code vsm serve} answers late
 * (a failed authentication, 3 s after it began, as pve) take the time of one, not of all.
 */
public final class AtOnce {
    private AtOnce() {}

    /** Each call's result, in their order, once all have returned (120 s at most); a call's failure is rethrown. */
    public static <T> List<T> all(List<Callable<T>> calls) {
        ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, calls.size()));
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> call : calls) {
                futures.add(threads.submit(call));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get(120, TimeUnit.SECONDS));
            }
            return results;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error; // an assertion
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (TimeoutException e) {
            throw new AssertionError("calls not returned within 120 s", e);
        } finally {
            threads.shutdownNow();
        }
    }
}
