package dev.vsm.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The shutdown hook's part: no child outlives vsm, not even one started as the shutdown begins. */
class ChildProcessesTest {
    @Test
    void aChildStartedAsTheShutdownBeginsIsStoppedToo() throws Exception {
        ChildProcesses children = ChildProcesses.newRegistry();
        // what a runner does before it launches (commons-exec registers the child later)
        children.beforeStart();
        Process sleep = new ProcessBuilder("sleep", "60").start();
        try {
            // SIGTERM reaches vsm now: the hook runs before the child is registered
            CompletableFuture<Void> hook = CompletableFuture.runAsync(children::stopAll);
            Thread.sleep(200);
            assertThat(hook).as("the hook waits for the start in flight").isNotDone();
            children.add(sleep);
            hook.get(10, TimeUnit.SECONDS);
            assertThat(sleep.waitFor(10, TimeUnit.SECONDS))
                    .as("the child was stopped")
                    .isTrue();
            assertThat(children.stopping()).isTrue();
        } finally {
            sleep.destroyForcibly();
        }
    }

    @Test
    void aStartThatFailedIsNotWaitedFor() throws Exception {
        ChildProcesses children = ChildProcesses.newRegistry();
        children.beforeStart();
        children.afterStart(); // the launch threw: add() never came
        CompletableFuture<Void> hook = CompletableFuture.runAsync(children::stopAll);
        hook.get(1, TimeUnit.SECONDS);
    }
}
