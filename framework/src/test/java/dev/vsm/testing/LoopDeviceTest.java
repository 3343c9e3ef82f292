package dev.vsm.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

@RootTest
class LoopDeviceTest {
    @Test
    void aSparseLoopDeviceThatCanBeFilledAndChecked() {
        LoopDevice loop = LoopDevice.create(4 << 20);
        try {
            assertThat(loop.path().toString()).startsWith("/dev/loop");
            assertThat(loop.nonZeroBytes()).isZero();
            loop.fillRandom(1);
            assertThat(loop.nonZeroBytes()).isGreaterThan(4_000_000);
        } finally {
            loop.close();
        }
        assertThat(loop.file()).doesNotExist();
    }
}
