package dev.vsm.files;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A process of this host, named so that a later process can tell whether it still runs: its pid
 * and its start time. A pid alone is not enough: the kernel hands pids out again (32,768 of them by
 * default), so on a busy host the pid of a writer killed minutes ago may belong to another process
 * by the time its leftovers are judged, and they would be kept as "in use" for good.
 *
 * <p>Its text, {@code <pid>.<start>} ({@code start} in milliseconds since the epoch, as the kernel
 * reports it through {@link ProcessHandle.Info#startInstant()}), goes into the names of temporary
 * files; {@link #parse} reads it back, and also a bare {@code <pid>} as names made before the start
 * time was added, for which only the pid can be checked.
 */
public final class ProcessStamp {
    /** The text of a stamp, as it stands inside a file name. */
    public static final String PATTERN = "\\d{1,10}(?:\\.\\d{1,19})?";

    private static final Pattern TEXT = Pattern.compile("(\\d{1,10})(?:\\.(\\d{1,19}))?");
    private static final ProcessStamp CURRENT = of(ProcessHandle.current());

    private final long pid;
    private final long startMillis; // -1: not known

    private ProcessStamp(long pid, long startMillis) {
        this.pid = pid;
        this.startMillis = startMillis;
    }

    /** This process. */
    public static ProcessStamp current() {
        return CURRENT;
    }

    /** A stamp's text read back ({@link #PATTERN}); empty when it is not one. */
    public static Optional<ProcessStamp> parse(String text) {
        Matcher m = TEXT.matcher(text);
        if (!m.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(
                    new ProcessStamp(Long.parseLong(m.group(1)), m.group(2) == null ? -1 : Long.parseLong(m.group(2))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static ProcessStamp of(ProcessHandle process) {
        return new ProcessStamp(process.pid(), startOf(process));
    }

    private static long startOf(ProcessHandle process) {
        return process.info()
                .startInstant()
                .map(java.time.Instant::toEpochMilli)
                .orElse(-1L);
    }

    public long pid() {
        return pid;
    }

    /**
     * Whether the process this stamp names still runs: a process with its pid is alive and, where
     * both start times are known, started when the stamp says (else the pid was handed out again).
     */
    public boolean running() {
        Optional<ProcessHandle> process = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (process.isEmpty()) {
            return false;
        }
        long start = startOf(process.get());
        return startMillis < 0 || start < 0 || start == startMillis;
    }

    /** {@code <pid>.<start>}, or {@code <pid>} when the start time is not known. */
    @Override
    public String toString() {
        return startMillis < 0 ? Long.toString(pid) : pid + "." + startMillis;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ProcessStamp that && pid == that.pid && startMillis == that.startMillis;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(pid) * 31 + Long.hashCode(startMillis);
    }
}
