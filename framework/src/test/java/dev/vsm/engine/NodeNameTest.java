package dev.vsm.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.env.Environment;
import dev.vsm.testing.RecordingConsole;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node's name: {@code $VSM_NODE}, else the host's name as {@code uname -n} gives it, up to the first dot. */
class NodeNameTest {
    @TempDir
    Path tmp;

    @Test
    void isTheKernelsHostName() throws Exception {
        Process uname =
                new ProcessBuilder("uname", "-n").redirectErrorStream(true).start();
        String expected = new String(uname.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
        assertThat(uname.waitFor()).isZero();
        DefaultStorageContext context = DefaultStorageContext.builder(new RecordingConsole())
                .environment(Environment.of(Map.of()))
                .build();
        assertThat(context.nodeName()).isEqualTo(expected.split("\\.", 2)[0]);
        assertThat(DefaultStorageContext.hostName(DefaultStorageContext.KERNEL_HOSTNAME))
                .isEqualTo(expected);
    }

    @Test
    void readsTheNameWithoutItsNewline() throws IOException {
        Path file = Files.writeString(tmp.resolve("hostname"), "pve1.example.org\n");
        assertThat(DefaultStorageContext.hostName(file)).isEqualTo("pve1.example.org");
    }

    @Test
    void withoutTheFileAsksTheJdk() {
        assertThat(DefaultStorageContext.hostName(tmp.resolve("absent"))).isNotBlank();
    }

    @Test
    void vsmNodeWins() {
        DefaultStorageContext context = DefaultStorageContext.builder(new RecordingConsole())
                .environment(Environment.of(Map.of("VSM_NODE", "node7")))
                .build();
        assertThat(context.nodeName()).isEqualTo("node7");
    }
}
