package dev.vsm.t.support;

import java.util.concurrent.TimeUnit;

/** The processes a vsm run starts (qemu-img, cstream, blkdiscard), for tests that stop vsm while one runs. */
public final class Children {
    private Children() {}

    /** The first descendant of {@code parent} running {@code command}, waited for up to 60 s. */
    public static ProcessHandle await(Process parent, String command) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            for (ProcessHandle child : parent.descendants().toList()) {
                if (child.info().command().orElse("").endsWith("/" + command)) {
                    return child;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError(command + " did not start under vsm within 60 s");
    }

    /** Kills {@code process} and every descendant still running, and waits for it (a test's finally block). */
    public static void killTree(Process process) throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
}
