package dev.vsm.zeroout;

import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** How far a zero-out tool says it has got, read from its verbose output lines. */
final class ToolOutput {
    /** blkdiscard -v, about once a second: {@code <dev>: Zero-filled <n> bytes from the offset <offset>}. */
    private static final Pattern BLKDISCARD =
            Pattern.compile(".*: Zero-filled (\\d{1,18}) bytes from the offset (\\d{1,18})\\s*");
    /** blkdiscard -v without --zeroout: {@code <dev>: Discarded <n> bytes from the offset <offset>}. */
    private static final Pattern DISCARD =
            Pattern.compile(".*: Discarded (\\d{1,18}) bytes from the offset (\\d{1,18})\\s*");
    /** cstream -v 1 -T 10, every 10 s and at the end: {@code <n> B <n> GB <s> s <n> B/s <n> GB/s}. */
    private static final Pattern CSTREAM = Pattern.compile("\\s*(\\d{1,18}) B .*");
    /** How cstream ends once it has filled the device: the normal end of the fallback. */
    static final String NO_SPACE = "No space left on device";

    private ToolOutput() {}

    /** The bytes done that a line reports, if it reports any. */
    static OptionalLong bytesDone(ZeroOutPlan.Tool tool, String line) {
        if (tool == ZeroOutPlan.Tool.BLKDISCARD || tool == ZeroOutPlan.Tool.DISCARD) {
            Matcher m = (tool == ZeroOutPlan.Tool.BLKDISCARD ? BLKDISCARD : DISCARD).matcher(line);
            return m.matches()
                    ? OptionalLong.of(Long.parseLong(m.group(2)) + Long.parseLong(m.group(1)))
                    : OptionalLong.empty();
        }
        Matcher m = CSTREAM.matcher(line);
        return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }

    /** True for cstream's closing {@code write: No space left on device}. */
    static boolean isEndOfDevice(ZeroOutPlan.Tool tool, String line) {
        return tool == ZeroOutPlan.Tool.CSTREAM && line.strip().endsWith(NO_SPACE);
    }
}
