package dev.vsm.progress;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.spi.Console;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressMeterTest {
    private static final long MS = 1_000_000L;
    private final AtomicLong clock = new AtomicLong(1_000 * MS);

    @Test
    void offATerminalOnlyTheSummaryIsPrinted() {
        List<String> lines = new ArrayList<>();
        Console console = new Console() {
            @Override
            public void info(String line) {
                lines.add(line);
            }

            @Override
            public void warn(String line) {
                lines.add("WARN " + line);
            }
        };
        ProgressMeter meter = new ProgressMeter("zero-out /dev/sdb", 4_000_000_000L, ProgressOutput.lines(console), clock::get);
        clock.addAndGet(1_000 * MS);
        meter.advanceTo(1_000_000_000L);
        clock.addAndGet(1_000 * MS);
        meter.advanceTo(500_000_000L); // a source that lags does not move it back
        meter.advanceTo(4_000_000_000L);
        assertThat(lines).isEmpty();
        meter.finish();
        meter.finish();
        assertThat(lines).containsExactly("zero-out /dev/sdb: 4000000000 bytes in 2.00 s, 2000.0 MB/s");
    }

    @Test
    void onATerminalTheLineIsRedrawnAtMostFiveTimesASecond() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        ProgressMeter meter = new ProgressMeter("zero-out /dev/loop3", 4L << 30, ProgressOutput.terminal(out), clock::get);
        clock.addAndGet(500 * MS);
        meter.advanceTo(1L << 30);
        clock.addAndGet(50 * MS);
        meter.advanceTo(2L << 30); // too soon to redraw
        clock.addAndGet(450 * MS);
        meter.advanceTo(3L << 30);
        meter.finish();
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text.split("\r", -1)).containsExactly("",
                "zero-out /dev/loop3: 1.00 GiB of 4.00 GiB (25%), 2147.5 MB/s",
                "zero-out /dev/loop3: 3.00 GiB of 4.00 GiB (75%), 3221.2 MB/s",
                "zero-out /dev/loop3: 3221225472 bytes in 1.00 s, 3221.2 MB/s\n");
    }

    @Test
    void abandoningEndsTheLiveLineWithoutASummary() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        ProgressMeter meter = new ProgressMeter("convert a.raw", 0, ProgressOutput.terminal(out), clock::get);
        clock.addAndGet(2_000 * MS);
        meter.advanceTo(10_000_000);
        meter.abandon();
        meter.advanceTo(20_000_000);
        meter.finish();
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .isEqualTo("\rconvert a.raw: 9.54 MiB, 5.0 MB/s\rconvert a.raw: 9.54 MiB, 5.0 MB/s\n");
        assertThat(meter.doneOfTotal()).isEqualTo("10000000 bytes");
    }

    @Test
    void aShorterLineBlanksWhatIsLeftOfTheLongerOne() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressOutput out = ProgressOutput.terminal(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        out.redraw("abcdef");
        out.line("xy");
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("\rabcdef\rxy    \n");
    }

    @Test
    void humanSizes() {
        assertThat(ProgressMeter.human(512)).isEqualTo("512 B");
        assertThat(ProgressMeter.human(1536)).isEqualTo("1.50 KiB");
        assertThat(ProgressMeter.human(107390959616L)).isEqualTo("100.02 GiB");
    }
}
