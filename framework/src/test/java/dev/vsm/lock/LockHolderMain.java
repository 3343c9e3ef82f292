package dev.vsm.lock;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Test helper run in a second JVM.
 *
 * <ul>
 *   <li>{@code hold <dir> <name>}: takes the lock, prints {@code locked}, holds it until stdin closes.</li>
 *   <li>{@code try <dir> <name> <millis>}: tries to take the lock; prints {@code acquired} (exit 0)
 *       or the error message (exit 1).</li>
 *   <li>{@code churn <dir> <name> <holdMillis> <gapMillis>}: takes the lock, holds it for
 *       {@code holdMillis}, releases it and takes it again after {@code gapMillis}, again and
 *       again; prints {@code locked} the first time; stops when stdin closes.</li>
 * </ul>
 */
public final class LockHolderMain {
    private LockHolderMain() {}

    public static void main(String[] args) throws Exception {
        FileLocks locks = new FileLocks(Path.of(args[1]), System.out);
        switch (args[0]) {
            case "hold" ->
                locks.runWithLock(args[2], Duration.ofSeconds(30), () -> {
                    System.out.println("locked");
                    System.out.flush();
                    try (BufferedReader in =
                            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                        while (in.readLine() != null) {
                            // hold until the parent closes our stdin
                        }
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            case "try" -> {
                try {
                    locks.runWithLock(
                            args[2], Duration.ofMillis(Long.parseLong(args[3])), () -> System.out.println("acquired"));
                } catch (RuntimeException e) {
                    System.out.println();
                    System.out.println(e.getMessage());
                    System.exit(1);
                }
            }
            case "churn" -> churn(locks, args[2], Long.parseLong(args[3]), Long.parseLong(args[4]));
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private static void churn(FileLocks locks, String name, long holdMillis, long gapMillis) throws Exception {
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        Thread reader = new Thread(() -> {
            try {
                System.in.transferTo(java.io.OutputStream.nullOutputStream());
            } catch (java.io.IOException e) {
                // stdin gone: stop too
            }
            stop.set(true);
        });
        reader.setDaemon(true);
        reader.start();
        boolean first = true;
        while (!stop.get()) {
            boolean announce = first;
            locks.runWithLock(name, Duration.ofSeconds(30), () -> {
                if (announce) {
                    System.out.println("locked");
                    System.out.flush();
                }
                sleep(holdMillis);
            });
            first = false;
            sleep(gapMillis);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
