package dev.vsm.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

/** The device-mapper probe: a missing node, a node that cannot be opened, one that can. */
class DeviceMapperTest {
    @TempDir
    Path dir;

    @Test
    void aMissingControlNodeSaysSo() {
        assertThat(DeviceMapper.missing(dir.resolve("control")))
                .contains(dir.resolve("control") + " does not exist: this kernel has no device-mapper");
    }

    @Test
    void aNodeThatCannotBeOpenedSaysWhy() throws IOException {
        Path control = Files.createDirectory(dir.resolve("control"));
        assertThat(DeviceMapper.missing(control)).hasValueSatisfying(reason -> assertThat(reason)
                .startsWith(control + " cannot be opened (").endsWith("): this kernel has no device-mapper driver"));
    }

    @Test
    void anOpenableNodeIsDeviceMapper() throws IOException {
        assertThat(DeviceMapper.missing(Files.writeString(dir.resolve("control"), ""))).isEmpty();
    }

    @Test
    void withoutDeviceMapperTheTestIsSkippedWithTheReasonEvenUnderCi() {
        // whatever CI says: requireOrSkip never consults it, it only ever aborts (skips)
        assertThatThrownBy(() -> DeviceMapper.requireOrSkip(dir.resolve("control")))
                .isExactlyInstanceOf(TestAbortedException.class)
                .hasMessage("skipped, needs device-mapper: " + dir.resolve("control") + " does not exist: this kernel has no device-mapper");
    }

    @Test
    void withDeviceMapperTheTestRuns() throws IOException {
        Path control = Files.writeString(dir.resolve("control"), "");
        assertThatCode(() -> DeviceMapper.requireOrSkip(control)).doesNotThrowAnyException();
    }
}
