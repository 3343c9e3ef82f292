package dev.vsm.zeroout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.StorageException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** pve's secure_delete_cmd: blkdiscard with the step clamped to the device's maximum, else cstream. */
class ZeroOutPlanTest {
    private static final long LOOP_MAX = 4294966784L; // what a loop device reports

    @Test
    void blkdiscardWithTheWantedStepWhenTheDeviceTakesIt() {
        ZeroOutPlan plan = ZeroOutPlan.of("/dev/vg/del-vm-100-disk-0", LOOP_MAX, 32, null);
        assertThat(plan.tool()).isEqualTo(ZeroOutPlan.Tool.BLKDISCARD);
        assertThat(plan.argv())
                .containsExactly("blkdiscard", "/dev/vg/del-vm-100-disk-0", "-v", "--zeroout", "--step", "33554432");
        assertThat(plan.stepBytes()).isEqualTo(32L << 20);
        assertThat(plan.note()).isEmpty();
    }

    @Test
    void theStepIsClampedToWriteZeroesMaxBytes() {
        ZeroOutPlan plan = ZeroOutPlan.of("/dev/sdb", 1048576, 32, null);
        assertThat(plan.argv()).containsExactly("blkdiscard", "/dev/sdb", "-v", "--zeroout", "--step", "1048576");
        assertThat(plan.note()).contains("reduce stepsize to the maximum supported by the storage: 1048576 bytes");
    }

    @Test
    void aThinVolumeIsDiscardedNeverZeroFilledInStepsTheDeviceTakes() {
        ZeroOutPlan plan = ZeroOutPlan.discard("/dev/pve/vm-100-disk-0", 17179869184L, 32);
        assertThat(plan.tool()).isEqualTo(ZeroOutPlan.Tool.DISCARD);
        assertThat(plan.argv()).containsExactly("blkdiscard", "/dev/pve/vm-100-disk-0", "-v", "--step", "33554432");
        assertThat(plan.note())
                .contains("'/dev/pve/vm-100-disk-0' is a thin volume: discarding it (its blocks go back to the pool "
                        + "and read as zeros) instead of writing zeroes, which would provision it");
        assertThat(ZeroOutPlan.discard("/dev/pve/vm-100-disk-0", 1048576, 32).argv())
                .endsWith("--step", "1048576");
    }

    @Test
    void aThinVolumeWhosePoolIgnoresDiscardsIsRefusedNotZeroFilled() {
        assertThatThrownBy(() -> ZeroOutPlan.discard("/dev/pve/vm-100-disk-0", 0, 32))
                .isInstanceOfSatisfying(
                        StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.FAILED))
                .hasMessage(
                        "'/dev/pve/vm-100-disk-0' is a thin "
                                + "volume whose pool ignores discards - not zeroing it: writing zeroes would provision all of it and can fill "
                                + "the pool; let the pool pass discards down (lvchange --discards nopassdown VG/POOL) and run again");
    }

    @Test
    void aStepEqualToTheMaximumIsNotReduced() {
        ZeroOutPlan plan = ZeroOutPlan.of("/dev/sdb", 1048576, 1, null);
        assertThat(plan.argv()).endsWith("--step", "1048576");
        assertThat(plan.note()).isEmpty();
    }

    @Test
    void noWriteZeroesFallsBackToCstreamWithPvesDefaultThroughput() {
        ZeroOutPlan plan = ZeroOutPlan.of("/dev/sdb", 0, 32, null);
        assertThat(plan.tool()).isEqualTo(ZeroOutPlan.Tool.CSTREAM);
        assertThat(plan.argv())
                .containsExactly(
                        "cstream",
                        "-i",
                        "/dev/zero",
                        "-o",
                        "/dev/sdb",
                        "-T",
                        "10",
                        "-v",
                        "1",
                        "-b",
                        "1048576",
                        "-t",
                        "-10485760");
        assertThat(plan.note()).isEqualTo(Optional.empty());
    }

    @Test
    void theFallbackTakesTheGivenThroughput() {
        assertThat(ZeroOutPlan.of("/dev/sdb", 0, 32, "104857600").argv()).endsWith("-t", "104857600");
        assertThat(ZeroOutPlan.of("/dev/sdb", 0, 32, "-50m").argv()).endsWith("-t", "-50m");
        assertThat(ZeroOutPlan.of("/dev/sdb", 0, 32, " 2g ").argv()).endsWith("-t", "2g");
    }

    @Test
    void aFalseThroughputMeansTheDefaultAsInPve() {
        assertThat(ZeroOutPlan.of("/dev/sdb", 0, 32, "0").argv()).endsWith("-t", "-10485760");
        assertThat(ZeroOutPlan.of("/dev/sdb", 0, 32, "").argv()).endsWith("-t", "-10485760");
    }

    @Test
    void badThroughputAndStepAreBadInput() {
        assertThatThrownBy(() -> ZeroOutPlan.of("/dev/sdb", 0, 32, "--fast"))
                .isInstanceOf(StorageException.class)
                .hasMessageStartingWith("invalid throughput '--fast'")
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
        assertThatThrownBy(() -> ZeroOutPlan.of("/dev/sdb", 0, 32, "10 m"))
                .hasMessageStartingWith("invalid throughput");
        assertThatThrownBy(() -> ZeroOutPlan.of("/dev/sdb", LOOP_MAX, 0, null))
                .hasMessage("invalid stepsize 0 MiB - it must be at least 1");
    }

    @Test
    void largeStepsDoNotOverflow() {
        assertThat(ZeroOutPlan.of("/dev/sdb", Long.MAX_VALUE, 4096, null).argv())
                .endsWith("--step", Long.toString(4096L << 20));
    }
}
