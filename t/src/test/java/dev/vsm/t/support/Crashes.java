package dev.vsm.t.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Kills vsm with SIGKILL at random moments, as a host crash would, for the crash rounds
 * ({@link CrashSafetyTest} on the host, {@link ThinCrashTest} in the guest): half the kills land
 * between 30 % and 100 % of the time an uninterrupted run took, the other half within a window
 * after vsm starts the external command that does the work (qemu-img, lvm2), so that many land
 * while that command writes rather than while the JVM starts.
 */
public final class Crashes {
    private final Random random;
    private final int childWindowMillis;
    private final int finishSeconds;

    /**
     * @param childWindowMillis the window after the child command starts
     * @param finishSeconds     how long a run may take before the test fails
     */
    public Crashes(Random random, int childWindowMillis, int finishSeconds) {
        this.random = random;
        this.childWindowMillis = childWindowMillis;
        this.finishSeconds = finishSeconds;
    }

    /** How a killed run ended. */
    public record Kill(boolean finishedFirst, int exit) {}

    /** Runs vsm once, uninterrupted, and returns how long it took (the scale of the kill moments). */
    public long timeOnce(Vsm vsm, String... args) {
        long start = System.nanoTime();
        Vsm.Started s = vsm.start(args);
        s.finish(finishSeconds).ok();
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /**
     * Starts vsm and after a random delay kills it and the commands it started (qemu-img, lvm2)
     * with SIGKILL, as a host crash would, and waits until they are gone, so that what is
     * checked next is what the crash left. (Killing vsm alone is milder: its qemu-img or lvm2
     * runs on to the end.)
     */
    public Kill killAtRandom(Vsm vsm, long typicalMillis, String... args) throws InterruptedException {
        boolean inChild = random.nextBoolean();
        long delay = inChild
                ? random.nextInt(childWindowMillis)
                : (long) (typicalMillis * (0.3 + 0.7 * random.nextDouble()));
        return kill(vsm, inChild, delay, args);
    }

    /** {@link #killAtRandom}, aimed at vsm's commands: within {@code windowMillis} of its first one starting. */
    public Kill killWhileItsCommandsRun(Vsm vsm, long windowMillis, String... args) throws InterruptedException {
        return kill(vsm, true, random.nextLong(Math.max(1, windowMillis)), args);
    }

    /**
     * In the guest, where vsm runs in the test's JVM: runs it in a thread and, at a random moment
     * within {@code windowMillis} (an uninterrupted run's time), SIGKILLs the commands it runs
     * then (or the next one it starts), as a crash would kill them; vsm then fails and, as in a
     * crash, does nothing more (its commands are single steps that it does not undo). What is
     * checked next is what the commands left, without a JVM start per round.
     */
    public Kill killItsCommandsInProcess(Vsm vsm, long windowMillis, String... args) throws Exception {
        long delay = random.nextLong(Math.max(1, windowMillis));
        java.util.concurrent.CompletableFuture<Vsm.Result> run =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> vsm.run(args));
        List<ProcessHandle> children = new ArrayList<>();
        try {
            run.get(delay, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            while (!run.isDone() && children.isEmpty()) {
                ProcessHandle.current().descendants().forEach(children::add);
                if (children.isEmpty()) {
                    Thread.sleep(0, 200_000);
                }
            }
            children.forEach(ProcessHandle::destroyForcibly);
        }
        Vsm.Result r = run.get(finishSeconds, TimeUnit.SECONDS);
        for (ProcessHandle child : children) {
            child.onExit().orTimeout(60, TimeUnit.SECONDS).join();
        }
        if (children.isEmpty()) {
            assertThat(r.exit())
                    .as("%s finished on its own; stderr: %s", String.join(" ", args), r.err())
                    .isZero();
        }
        return new Kill(children.isEmpty(), r.exit());
    }

    /** Runs vsm once in this JVM, uninterrupted, and returns how long it took. */
    public static long timeInProcess(Vsm vsm, String... args) {
        long start = System.nanoTime();
        vsm.run(args).ok();
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private Kill kill(Vsm vsm, boolean inChild, long delay, String... args) throws InterruptedException {
        Vsm.Started started = vsm.start(args);
        Process p = started.process();
        boolean finished;
        if (inChild) {
            // the other half of the rounds: a moment while vsm's command (qemu-img, lvm2) runs
            while (p.isAlive() && p.toHandle().children().findAny().isEmpty()) {
                Thread.sleep(0, 200_000);
            }
            finished = p.waitFor(delay, TimeUnit.MILLISECONDS);
        } else {
            finished = p.waitFor(delay, TimeUnit.MILLISECONDS);
        }
        List<ProcessHandle> children = new ArrayList<>();
        if (!finished) {
            // a crash takes the commands vsm runs with it: SIGKILL vsm, then at once each process
            // it had started (by PID: they are ours), so no qemu-img or lvm2 finishes its work
            p.toHandle().descendants().forEach(children::add);
            p.destroyForcibly();
            children.forEach(ProcessHandle::destroyForcibly);
        }
        Vsm.Result r = started.finish(finishSeconds);
        for (ProcessHandle child : children) {
            child.onExit().orTimeout(60, TimeUnit.SECONDS).join();
        }
        if (finished) {
            assertThat(r.exit())
                    .as("%s finished on its own; stderr: %s", String.join(" ", args), r.err())
                    .isZero();
        }
        return new Kill(finished, r.exit());
    }
}
