package dev.vsm.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.files.ProcessStamp;
import dev.vsm.spi.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFileTest {
    @TempDir
    Path tmp;

    private String[] names() throws Exception {
        try (Stream<Path> s = Files.list(tmp)) {
            return s.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
        }
    }

    @Test
    void replacesTheContentAndLeavesNothingElse() throws Exception {
        Path file = tmp.resolve("storage.yaml");
        Files.writeString(file, "old");
        AtomicFile.write(file, "new".getBytes());
        assertThat(file).hasContent("new");
        assertThat(names()).containsExactly("storage.yaml");
    }

    @Test
    void aFailedReplaceLeavesTheTargetAndNoTemporaryFile() throws Exception {
        Path target = Files.createDirectory(tmp.resolve("storage.yaml"));
        Files.writeString(target.resolve("inside"), "x");
        assertThatThrownBy(() -> AtomicFile.write(target, "new".getBytes()))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FAILED))
                .hasMessageStartingWith("can't write '" + target + "': ");
        assertThat(names()).containsExactly("storage.yaml");
        assertThat(target.resolve("inside")).hasContent("x");
    }

    @Test
    void onlyTemporaryFilesOfDeadProcessesAreRemoved() throws Exception {
        Path file = tmp.resolve("storage.yaml");
        Path dead = Files.writeString(tmp.resolve(".storage.yaml.tmp-999999999-00ff00ff"), "");
        Path alive = Files.writeString(
                tmp.resolve(".storage.yaml.tmp-" + ProcessHandle.current().pid() + "-00ff00ff"), "");
        Path stamped = Files.writeString(tmp.resolve(".storage.yaml.tmp-" + ProcessStamp.current() + "-00ff00ff"), "");
        // a writer that died and whose pid the kernel has since given to this process
        Path reused = Files.writeString(
                tmp.resolve(".storage.yaml.tmp-" + ProcessHandle.current().pid() + ".1000-00ff00ff"), "");
        Path other = Files.writeString(tmp.resolve(".other.yaml.tmp-999999999-00ff00ff"), "");
        AtomicFile.removeStaleTemporaries(file);
        assertThat(dead).doesNotExist();
        assertThat(reused).doesNotExist();
        assertThat(alive).exists();
        assertThat(stamped).exists();
        assertThat(other).exists();
    }
}
