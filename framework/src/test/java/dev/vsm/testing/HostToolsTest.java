package dev.vsm.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

class HostToolsTest {
    @Test
    void missingHostToolsSkipOutsideCiAndFailUnderCi() {
        assertThatThrownBy(() -> HostTools.unavailable("lvm2", null))
                .isInstanceOf(TestAbortedException.class)
                .hasMessage("needs the real host: lvm2");
        assertThatThrownBy(() -> HostTools.unavailable("lvm2", "false")).isInstanceOf(TestAbortedException.class);
        assertThatThrownBy(() -> HostTools.unavailable("lvm2", "true"))
                .isInstanceOf(AssertionError.class)
                .hasMessage("needs the real host: lvm2 (CI=true: such tests must run, not skip)");
    }

    @Test
    void runsToolsWithExtraEnvironment() {
        HostTools.Result r =
                HostTools.run(Map.of("VSM_TEST_X", "42"), "/bin/sh", "-c", "echo $VSM_TEST_X; echo oops >&2; exit 3");
        assertThat(r).isEqualTo(new HostTools.Result(3, "42\n", "oops\n"));
        assertThatThrownBy(() -> HostTools.mustRun(Map.of(), "/bin/false"))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("/bin/false failed (exit 1)");
    }
}
