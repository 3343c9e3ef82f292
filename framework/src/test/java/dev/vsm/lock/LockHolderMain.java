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
            default -> throw new IllegalArgumentException(args[0]);
        }
    }
}
