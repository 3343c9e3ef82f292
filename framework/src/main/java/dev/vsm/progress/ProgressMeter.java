package dev.vsm.progress;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Shows how far a long byte-moving job has got (a zero-out, a convert): on a terminal one line
 * redrawn at most every {@value #REDRAW_MILLIS} ms with bytes done, percent and MB/s; off a
 * terminal nothing until {@link #finish()} prints one summary line. Progress only grows: each
 * source of figures (a tool's output, a device counter) may report, the furthest one counts.
 *
 * <p>MB/s is 10<sup>6</sup> bytes per second, averaged over the whole run. Thread-safe.
 */
public final class ProgressMeter {
    private static final long REDRAW_MILLIS = 200;
    private static final long MILLION = 1_000_000L;

    private final String label;
    private final long totalBytes;
    private final ProgressOutput output;
    private final LongSupplier nanoClock;
    private final long startNanos;
    private long done;
    private long lastDrawNanos = Long.MIN_VALUE;
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
        if (output.live() && (lastDrawNanos == Long.MIN_VALUE || now - lastDrawNanos >= REDRAW_MILLIS * MILLION)) {
            lastDrawNanos = now;
            output.redraw(liveLine(now));
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

    String liveLine(long now) {
        String of = totalBytes > 0 ? " of " + human(totalBytes) + " (" + percent() + "%)" : "";
        return label + ": " + human(done) + of + ", " + rate(now) + " MB/s";
    }

    String summaryLine(long now) {
        return String.format(Locale.ROOT, "%s: %d bytes in %.2f s, %s MB/s", label, done, seconds(now), rate(now));
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
