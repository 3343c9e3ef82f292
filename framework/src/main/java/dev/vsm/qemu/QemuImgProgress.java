package dev.vsm.qemu;

import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads qemu-img's {@code -p} progress: it redraws {@code "    (12.34/100%)"} with a carriage
 * return while it works (one piece per line once split at {@code \r} and {@code \n}).
 */
final class QemuImgProgress {
    private static final Pattern PERCENT = Pattern.compile("\\s*\\((\\d{1,3}(?:\\.\\d+)?)/100%\\)\\s*");

    private QemuImgProgress() {}

    /** The percentage a line reports (0 to 100), if it is a progress line. */
    public static OptionalDouble percent(String line) {
        Matcher m = PERCENT.matcher(line);
        if (!m.matches()) {
            return OptionalDouble.empty();
        }
        double p = Double.parseDouble(m.group(1));
        return p <= 100 ? OptionalDouble.of(p) : OptionalDouble.empty();
    }

    /** The bytes done that a percentage of {@code totalBytes} stands for. */
    public static long bytesDone(double percent, long totalBytes) {
        return (long) (percent / 100 * totalBytes);
    }
}
