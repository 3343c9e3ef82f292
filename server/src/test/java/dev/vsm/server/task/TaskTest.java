package dev.vsm.server.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class TaskTest {
    private final Tasks tasks = new Tasks();

    private static List<String> lines(Task task) {
        return task.log(0, 100).stream().map(line -> (String) line.get("t")).toList();
    }

    @Test
    void workThatReturnsEndsTheTaskOk() {
        Task task = tasks.start("node1", "imgcopy", "", "root@pam");
        String upid = task.run(t -> t.log("copying"));
        assertThat(upid).isEqualTo(task.upid());
        assertThat(task.running()).isFalse();
        assertThat(task.exitstatus()).isEqualTo("OK");
        assertThat(lines(task)).containsExactly("copying", "TASK OK");
    }

    @Test
    void aStorageFailureIsTheTasksOwnAndGoesNoFurther() {
        Task task = tasks.start("node1", "imgcopy", "", "root@pam");
        task.run(t -> {
            throw StorageException.failed("target volume 'local:vm-100-disk-1' already exists");
        });
        assertThat(task.exitstatus()).isEqualTo("target volume 'local:vm-100-disk-1' already exists");
        assertThat(lines(task)).containsExactly("TASK ERROR: target volume 'local:vm-100-disk-1' already exists");
    }

    @Test
    void anythingElseEndsTheTaskTooAndGoesOnUp() {
        Task task = tasks.start("node1", "prunebackups", "local", "root@pam");
        assertThatThrownBy(() -> task.run(t -> {
                    throw new IllegalStateException();
                }))
                .isInstanceOf(IllegalStateException.class);
        assertThat(task.running()).as("no task stays running").isFalse();
        assertThat(task.exitstatus()).isEqualTo("java.lang.IllegalStateException");
        assertThat(task.status()).isInstanceOf(Map.class).containsEntry("status", "stopped");
    }

    /** Work that waits until it is interrupted, then fails as vsm's work does (a lock's wait). */
    private static Task.Work waitingForALock(CountDownLatch started) {
        return t -> {
            started.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw StorageException.failed("can't lock file 'storage-local.lock' - interrupted");
            }
        };
    }

    @Test
    void aStoppedTasksWorkIsInterruptedAndTheTaskEndsReceivedInterrupt() throws Exception {
        Task task = tasks.start("node1", "imgdel", "100@local", "ops@pve");
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean interruptLeft = new AtomicBoolean(true);
        Thread worker = new Thread(() -> {
            task.run(waitingForALock(started));
            interruptLeft.set(Thread.currentThread().isInterrupted());
        });
        worker.start();
        started.await();
        task.stop();
        worker.join();
        assertThat(task.exitstatus()).isEqualTo("received interrupt");
        assertThat(lines(task))
                .containsExactly(
                        "can't lock file 'storage-local.lock' - interrupted", "TASK ERROR: received interrupt");
        assertThat(interruptLeft).as("the thread goes on without the interrupt").isFalse();
    }

    @Test
    void aTaskStoppedBeforeItsWorkRunsDoesNotRunIt() {
        Task task = tasks.start("node1", "imgdel", "local", "ops@pve");
        task.stop();
        AtomicBoolean ran = new AtomicBoolean();
        task.run(t -> ran.set(true));
        assertThat(ran).isFalse();
        assertThat(task.exitstatus()).isEqualTo("received interrupt");
        assertThat(lines(task)).containsExactly("TASK ERROR: received interrupt");
    }

    @Test
    void workThatFinishesDespiteAStopEndsAsItEnded() {
        Task task = tasks.start("node1", "imgdel", "local", "ops@pve");
        task.run(t -> {
            t.stop(); // the stop comes as the work ends: nothing is left to interrupt
            t.log("Removed volume 'local:iso/x.iso'");
        });
        assertThat(task.exitstatus()).isEqualTo("OK");
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void stoppingAnEndedTaskChangesNothing() {
        Task task = tasks.start("node1", "imgdel", "local", "ops@pve");
        task.run(t -> {});
        task.stop();
        assertThat(task.exitstatus()).isEqualTo("OK");
        assertThat(lines(task)).containsExactly("TASK OK");
    }
}
