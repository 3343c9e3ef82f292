package dev.vsm.zeroout;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The lines blkdiscard -v and cstream -v 1 print, as in the thread behind pve's commit 728d8f3. */
class ToolOutputTest {
    @Test
    void blkdiscardReportsOffsetPlusLength() {
        assertThat(ToolOutput.bytesDone(
                        ZeroOutPlan.Tool.BLKDISCARD,
                        "/dev/test/vm-112-disk-1: Zero-filled 4664066048 bytes from the offset 4764729344"))
                .hasValue(4664066048L + 4764729344L);
        assertThat(ToolOutput.bytesDone(
                        ZeroOutPlan.Tool.BLKDISCARD, "blkdiscard: /dev/loop1 contains existing file system (ext4)."))
                .isEqualTo(OptionalLong.empty());
    }

    @Test
    void aDiscardReportsItsLinesToo() {
        assertThat(ToolOutput.bytesDone(
                        ZeroOutPlan.Tool.DISCARD,
                        "/dev/pve/vm-100-disk-0: Discarded 33554432 bytes from the offset 67108864"))
                .hasValue(33554432L + 67108864L);
        assertThat(ToolOutput.bytesDone(ZeroOutPlan.Tool.DISCARD, "/dev/sdb: Zero-filled 1 bytes from the offset 0"))
                .as("a zero-fill line is not a discard's")
                .isEqualTo(OptionalLong.empty());
    }

    @Test
    void cstreamReportsItsTotal() {
        assertThat(ToolOutput.bytesDone(
                        ZeroOutPlan.Tool.CSTREAM, "13561233408 B 12.6 GB 10.00 s 1356062979 B/s 1.26 GB/s"))
                .hasValue(13561233408L);
        assertThat(ToolOutput.bytesDone(ZeroOutPlan.Tool.CSTREAM, "write: No space left on device"))
                .isEmpty();
    }

    @Test
    void onlyCstreamEndsWithNoSpaceLeft() {
        assertThat(ToolOutput.isEndOfDevice(ZeroOutPlan.Tool.CSTREAM, "write: No space left on device"))
                .isTrue();
        assertThat(ToolOutput.isEndOfDevice(ZeroOutPlan.Tool.CSTREAM, "write: Input/output error"))
                .isFalse();
        assertThat(ToolOutput.isEndOfDevice(ZeroOutPlan.Tool.BLKDISCARD, "write: No space left on device"))
                .isFalse();
    }
}
