package dev.vsm.progress;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Shows how far a long byte-moving job has got: vsm's one progress display, behind
 * {@code wipe}, {@code free} with saferemove, {@code import}, {@code export},
 * {@code import-stream} and {@code copy}.
 *
 * <ul>
 *   <li>On a terminal, one line redrawn at most every {@value #REDRAW_MILLIS} ms: a bar, percent,
 *       bytes done of the total, MB/s and the estimated time left.</li>
 *   <li>Off a terminal, one line each time another tenth of the total is done (10% .. 90%), with
 *       the same figures; none when the total is unknown.</li>
 *   <li>At the end ({@link #finish()}) one summary line: bytes, seconds, MB/s.</li>
 * </ul>
 *
 * <p>{@link ProgressOutput#none()} silences all of it ({@code --quiet}). Progress only grows:
 * each source of figures (a tool's output, a device counter) may report, the furthest one counts.
 * MB/s is 10<sup>6</sup> bytes per second, averaged over the whole run. Thread-safe.
 */
public final class ProgressMeter {
    private static final long REDRAW_MILLIS = 200;
    private static final long MILLION = 1_000_000L;
    private static final int BAR_WIDTH = 20;

    private final String label;
    private final long totalBytes;
    private final ProgressOutput output;
    private final LongSupplier nanoClock;
    private final long startNanos;
    private long done;
    private long lastDrawNanos = Long.MIN_VALUE;
    private int tenthsPrinted;
    private boolean ended;

    /**
     * @param label      what is measured, e.g. {@code zero-out /dev/loop3}
     * @param totalBytes how many bytes the job covers, or 0 when unknown (no percent then)
     * @param output     where to show it
     * @param nanoClock  a monotonic clock in nanoseconds ({@link System#nanoTime} outside tests)
     */
    public ProgressMeter(String label, long totalBytes, ProgressOutput output, LongSupplier nanoClock) {
        this.label = requireNonNull(label, "label");
        this.totalBytes = Math.max(0, totalBytes);
        this.output = requireNonNull(output, "output");
        this.nanoClock = requireNonNull(nanoClock, "nanoClock");
        this.startNanos = nanoClock.getAsLong();
    }

    /** A meter starting now. */
    public static ProgressMeter start(String label, long totalBytes, ProgressOutput output) {
        return new ProgressMeter(label, totalBytes, output, System::nanoTime);
    }

    /** Records that at least {@code bytesDone} bytes are done, redrawing the live line when due. */
    public synchronized void advanceTo(long bytesDone) {
        if (ended || bytesDone <= done) {
            return;
        }
        done = totalBytes > 0 ? Math.min(bytesDone, totalBytes) : bytesDone;
        long now = nanoClock.getAsLong();
        if (output.live()) {
            if (lastDrawNanos == Long.MIN_VALUE || now - lastDrawNanos >= REDRAW_MILLIS * MILLION) {
                lastDrawNanos = now;
                output.redraw(liveLine(now));
            }
        } else if (totalBytes > 0 && done < totalBytes) {
            int tenths = (int) (done * 10 / totalBytes);
            if (tenths > tenthsPrinted) {
                tenthsPrinted = tenths;
                output.line(tenthLine(now));
            }
        }
    }

    /** Bytes done so far. */
    public synchronized long done() {
        return done;
    }

    /** The job is done: prints the summary line (bytes, seconds, MB/s). */
    public synchronized void finish() {
        if (!ended) {
            ended = true;
            output.line(summaryLine(nanoClock.getAsLong()));
        }
    }

    /** The job stopped short: ends a live line so that what follows starts on its own; prints no summary. */
    public synchronized void abandon() {
        if (!ended) {
            ended = true;
            if (output.live() && lastDrawNanos != Long.MIN_VALUE) {
                output.line(liveLine(nanoClock.getAsLong()));
            }
        }
    }

    /** {@code <done> of <total> bytes (<p>%)}, or {@code <done> bytes} when the total is unknown. */
    public synchronized String doneOfTotal() {
        return totalBytes > 0 ? done + " of " + totalBytes + " bytes (" + percent() + "%)" : done + " bytes";
    }

    /** {@code <label>: [#####...............]  25% 1.00 GiB of 4.00 GiB, 150.3 MB/s, ETA 0:21}. */
    String liveLine(long now) {
        if (totalBytes <= 0) {
            return label + ": " + human(done) + ", " + rate(now) + " MB/s";
        }
        int filled = (int) (done * BAR_WIDTH / totalBytes);
        String bar = "[" + "#".repeat(filled) + ".".repeat(BAR_WIDTH - filled) + "]";
        return String.format(
                Locale.ROOT,
                "%s: %s %3d%% %s of %s, %s MB/s, ETA %s",
                label,
                bar,
                percent(),
                human(done),
                human(totalBytes),
                rate(now),
                eta(now));
    }

    /** {@code <label>: 30% (<done> of <total> bytes), 150.3 MB/s, ETA 0:21}: the line per tenth off a terminal. */
    String tenthLine(long now) {
        return String.format(
                Locale.ROOT,
                "%s: %d%% (%d of %d bytes), %s MB/s, ETA %s",
                label,
                percent(),
                done,
                totalBytes,
                rate(now),
                eta(now));
    }

    String summaryLine(long now) {
        return String.format(Locale.ROOT, "%s: %d bytes in %.2f s, %s MB/s", label, done, seconds(now), rate(now));
    }

    /** The time left at the average rate so far, as {@code m:ss} or {@code h:mm:ss}; {@code -} before any progress. */
    private String eta(long now) {
        double s = seconds(now);
        if (done <= 0 || s <= 0) {
            return "-";
        }
        long left = Math.round((totalBytes - done) * s / done);
        long h = left / 3600;
        long m = left / 60 % 60;
        long sec = left % 60;
        return h > 0
                ? String.format(Locale.ROOT, "%d:%02d:%02d", h, m, sec)
                : String.format(Locale.ROOT, "%d:%02d", m, sec);
    }

    private int percent() {
        return (int) (done * 100 / totalBytes);
    }

    private double seconds(long now) {
        return Math.max(0, now - startNanos) / 1e9;
    }

    private String rate(long now) {
        double s = seconds(now);
        return s <= 0 ? "-" : String.format(Locale.ROOT, "%.1f", done / s / MILLION);
    }

    /** Bytes in binary units, as a person reads them on the live line: {@code 1.15 GiB}. */
    static String human(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return unit == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.2f %s", value, units[unit]);
    }
}
