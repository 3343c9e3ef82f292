package dev.vsm.zeroout;

import static java.util.Objects.requireNonNull;

import dev.vsm.progress.ProgressMeter;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A device's write counter in sysfs, from the moment it was opened: how many bytes the kernel
 * has written to the device since. It measures a zero-out while the tool is silent (blkdiscard
 * buffers its stdout on a pipe, cstream reports every 10 s) and when it is stopped short.
 * Writes by anyone else count too; cstream's writes count once they leave the page cache.
 */
final class WriteCounter implements AutoCloseable {
    private static final long PERIOD_MILLIS = 250;

    private final Sysfs sysfs;
    private final String device;
    private final long base;
    private ScheduledExecutorService timer;

    private WriteCounter(Sysfs sysfs, String device, long base) {
        this.sysfs = requireNonNull(sysfs, "sysfs");
        this.device = requireNonNull(device, "device");
        this.base = base;
    }

    /** The counter of {@code device} (a kernel name) from now on; it reads 0 throughout where sysfs has none. */
    static WriteCounter open(Sysfs sysfs, String device) {
        return new WriteCounter(sysfs, device, sysfs.bytesWritten(device).orElse(-1L));
    }

    /** Bytes written since {@link #open}, 0 when unknown. */
    long bytesSinceOpen() {
        return base < 0
                ? 0
                : sysfs.bytesWritten(device).map(now -> Math.max(0, now - base)).orElse(0L);
    }

    /** Feeds {@code meter} every {@value #PERIOD_MILLIS} ms on a daemon thread, until {@link #close()}. */
    void feed(ProgressMeter meter) {
        if (base < 0 || timer != null) {
            return;
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "vsm-progress-" + device);
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(
                () -> meter.advanceTo(bytesSinceOpen()), PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        if (timer != null) {
            timer.shutdownNow();
        }
    }
}
