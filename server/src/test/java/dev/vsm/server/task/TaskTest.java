package dev.vsm.server.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import java.util.List;
import java.util.Map;
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
}
