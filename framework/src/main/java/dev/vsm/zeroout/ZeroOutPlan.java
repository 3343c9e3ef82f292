package dev.vsm.zeroout;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageException;
import dev.vsm.spi.ZeroOut;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How one device gets zeroed: the tool, its argv (built here and nowhere else) and the note to
 * print first. pve's {@code secure_delete_cmd}: {@code blkdiscard --zeroout} in steps no larger
 * than the device's write-zeroes maximum, else the {@code cstream} fallback.
 *
 * @param tool      which tool runs
 * @param argv      its argv
 * @param stepBytes the blkdiscard step (0 for cstream)
 * @param note      a line to print before running, when the step had to be reduced
 */
record ZeroOutPlan(Tool tool, List<String> argv, long stepBytes, Optional<String> note) {
    private static final long MIB = 1024L * 1024L;
    private static final Pattern THROUGHPUT = Pattern.compile(ZeroOut.THROUGHPUT_REGEX);

    /** The two ways to zero a device. */
    public enum Tool {
        /** {@code blkdiscard --zeroout}: the kernel's WRITE ZEROES, fast, skips what is already zero. */
        BLKDISCARD,
        /** {@code cstream} copying {@code /dev/zero}: for devices without WRITE ZEROES, ends with ENOSPC. */
        CSTREAM,
        /**
         * {@code blkdiscard} without {@code --zeroout}, for thin volumes: writing zeroes would
         * provision every block and can fill the pool; a discard unprovisions them instead, and an
         * unprovisioned block of a thin volume reads as zeros.
         */
        DISCARD
    }

    public ZeroOutPlan {
        requireNonNull(tool, "tool");
        argv = List.copyOf(argv);
        requireNonNull(note, "note");
    }

    /**
     * The plan for a device.
     *
     * @param devicePath          the path written to argv (as the caller named it)
     * @param writeZeroesMaxBytes the device queue's {@code write_zeroes_max_bytes}; 0 selects cstream
     * @param stepMiB             the wanted step in MiB, at least 1
     * @param throughput          cstream's {@code -t}, or null, blank or {@code 0} for {@link ZeroOut#DEFAULT_THROUGHPUT}
     *                            (pve takes a false value as unset)
     */
    public static ZeroOutPlan of(String devicePath, long writeZeroesMaxBytes, int stepMiB, String throughput) {
        requireNonNull(devicePath, "devicePath");
        if (stepMiB < 1) {
            throw StorageException.badInput("invalid stepsize %d MiB - it must be at least 1", stepMiB);
        }
        String rate = throughput(throughput);
        if (writeZeroesMaxBytes <= 0) {
            return new ZeroOutPlan(
                    Tool.CSTREAM,
                    List.of(
                            "cstream",
                            "-i",
                            "/dev/zero",
                            "-o",
                            devicePath,
                            "-T",
                            "10",
                            "-v",
                            "1",
                            "-b",
                            "1048576",
                            "-t",
                            rate),
                    0,
                    Optional.empty());
        }
        long step = stepMiB * MIB;
        Optional<String> note = Optional.empty();
        if (step > writeZeroesMaxBytes) {
            step = writeZeroesMaxBytes;
            note = Optional.of("reduce stepsize to the maximum supported by the storage: " + step + " bytes");
        }
        return new ZeroOutPlan(
                Tool.BLKDISCARD,
                List.of("blkdiscard", devicePath, "-v", "--zeroout", "--step", Long.toString(step)),
                step,
                note);
    }

    /**
     * The plan for a thin volume: discard it, in steps of {@code stepMiB} no larger than the
     * device's {@code discard_max_bytes}. A thin volume whose pool ignores discards
     * ({@code discard_max_bytes} 0) is refused: zero-filling it would provision it whole.
     *
     * @param discardMaxBytes the device queue's {@code discard_max_bytes}
     */
    public static ZeroOutPlan discard(String devicePath, long discardMaxBytes, int stepMiB) {
        requireNonNull(devicePath, "devicePath");
        if (stepMiB < 1) {
            throw StorageException.badInput("invalid stepsize %d MiB - it must be at least 1", stepMiB);
        }
        if (discardMaxBytes <= 0) {
            throw StorageException.failed(
                    "'%s' is a thin volume whose pool ignores discards - not zeroing it: writing zeroes "
                            + "would provision all of it and can fill the pool; let the pool pass discards down "
                            + "(lvchange --discards nopassdown VG/POOL) and run again",
                    devicePath);
        }
        long step = Math.min(stepMiB * MIB, discardMaxBytes);
        return new ZeroOutPlan(
                Tool.DISCARD,
                List.of("blkdiscard", devicePath, "-v", "--step", Long.toString(step)),
                step,
                Optional.of("'" + devicePath
                        + "' is a thin volume: discarding it (its blocks go back to the pool and read as zeros) "
                        + "instead of writing zeroes, which would provision it"));
    }

    private static String throughput(String value) {
        if (value == null || value.isBlank() || value.strip().equals("0")) {
            return ZeroOut.DEFAULT_THROUGHPUT;
        }
        String v = value.strip();
        if (!THROUGHPUT.matcher(v).matches()) {
            throw StorageException.badInput(
                    "invalid throughput '%s' - give cstream's -t value: bytes per second, "
                            + "optionally with a k, m or g suffix (negative: a limit per write, e.g. %s)",
                    value, ZeroOut.DEFAULT_THROUGHPUT);
        }
        return v;
    }
}
