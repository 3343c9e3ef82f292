package dev.vsm.lvm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LvmStderrTest {
    @Test
    void noMediumIsNoise() {
        String stderr = """
                  /dev/sr0: open failed: No medium found
                  WARNING: Activation disabled. No device-mapper interaction will be attempted.

                  /dev/sr1: open failed: No medium found
                  Volume group "nosuch" not found
                """;
        assertThat(LvmStderr.meaningful(stderr))
                .containsExactly(
                        "WARNING: Activation disabled. No device-mapper interaction will be attempted.",
                        "Volume group \"nosuch\" not found");
        assertThat(LvmStderr.meaningful("")).isEmpty();
        assertThat(LvmStderr.isNoise("  /dev/sr0: open failed: No medium found"))
                .isTrue();
    }
}
