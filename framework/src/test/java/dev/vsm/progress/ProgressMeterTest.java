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

    private static Console collecting(List<String> lines) {
        return new Console() {
            @Override
            public void info(String line) {
                lines.add(line);
            }

            @Override
            public void warn(String line) {
                lines.add("WARN " + line);
            }
        };
    }

    @Test
    void offATerminalOneLinePerTenthThenTheSummary() {
        List<String> lines = new ArrayList<>();
        ProgressMeter meter = new ProgressMeter(
                "zero-out /dev/sdb", 4_000_000_000L, ProgressOutput.lines(collecting(lines)), clock::get);
        clock.addAndGet(1_000 * MS);
        meter.advanceTo(300_000_000L); // 7%: no tenth yet
        meter.advanceTo(1_000_000_000L); // 25%: the second tenth is passed, one line for both
        meter.advanceTo(1_100_000_000L); // still the second tenth
        clock.addAndGet(1_000 * MS);
        meter.advanceTo(500_000_000L); // a source that lags does not move it back
        meter.advanceTo(2_000_000_000L);
        meter.advanceTo(4_000_000_000L); // the end is the summary's
        meter.finish();
        meter.finish();
        assertThat(lines)
                .containsExactly(
                        "zero-out /dev/sdb: 25% (1000000000 of 4000000000 bytes), 1000.0 MB/s, ETA 0:03",
                        "zero-out /dev/sdb: 50% (2000000000 of 4000000000 bytes), 1000.0 MB/s, ETA 0:02",
                        "zero-out /dev/sdb: 4000000000 bytes in 2.00 s, 2000.0 MB/s");
    }

    @Test
    void offATerminalWithoutATotalOnlyTheSummary() {
        List<String> lines = new ArrayList<>();
        ProgressMeter meter = new ProgressMeter("export", 0, ProgressOutput.lines(collecting(lines)), clock::get);
        clock.addAndGet(2_000 * MS);
        meter.advanceTo(10_000_000);
        meter.finish();
        assertThat(lines).containsExactly("export: 10000000 bytes in 2.00 s, 5.0 MB/s");
    }

    @Test
    void quietPrintsNothing() {
        ProgressMeter meter = new ProgressMeter("convert", 100, ProgressOutput.none(), clock::get);
        clock.addAndGet(1_000 * MS);
        meter.advanceTo(50);
        meter.abandon();
        meter.finish();
        assertThat(meter.done()).isEqualTo(50);
    }

    @Test
    void onATerminalTheLineIsRedrawnAtMostFiveTimesASecond() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        ProgressMeter meter =
                new ProgressMeter("zero-out /dev/loop3", 4L << 30, ProgressOutput.terminal(out), clock::get);
        clock.addAndGet(500 * MS);
        meter.advanceTo(1L << 30);
        clock.addAndGet(50 * MS);
        meter.advanceTo(2L << 30); // too soon to redraw
        clock.addAndGet(450 * MS);
        meter.advanceTo(3L << 30);
        meter.finish();
        String text = bytes.toString(StandardCharsets.UTF_8);
        String live = "zero-out /dev/loop3: [###############.....]  75% 3.00 GiB of 4.00 GiB, 3221.2 MB/s, ETA 0:00";
        String summary = "zero-out /dev/loop3: 3221225472 bytes in 1.00 s, 3221.2 MB/s";
        assertThat(text.split("\r", -1))
                .containsExactly(
                        "",
                        "zero-out /dev/loop3: [#####...............]  25% 1.00 GiB of 4.00 GiB, 2147.5 MB/s, ETA 0:02",
                        live,
                        summary + " ".repeat(live.length() - summary.length())
                                + "\n"); // blanks over the longer live line
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
    void theEtaOfALongJobHasHours() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressMeter meter = new ProgressMeter(
                "copy",
                1_000_000_000_000L,
                ProgressOutput.terminal(new PrintStream(bytes, true, StandardCharsets.UTF_8)),
                clock::get);
        clock.addAndGet(10_000 * MS);
        meter.advanceTo(1_000_000_000L); // 0.1% in 10 s: 9990 s left
        assertThat(bytes.toString(StandardCharsets.UTF_8)).endsWith("100.0 MB/s, ETA 2:46:30");
    }

    @Test
    void humanSizes() {
        assertThat(ProgressMeter.human(512)).isEqualTo("512 B");
        assertThat(ProgressMeter.human(1536)).isEqualTo("1.50 KiB");
        assertThat(ProgressMeter.human(107390959616L)).isEqualTo("100.02 GiB");
    }
}
