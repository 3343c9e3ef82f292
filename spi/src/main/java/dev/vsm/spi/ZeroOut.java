package dev.vsm.spi;

import java.nio.file.Path;

/**
 * Overwrites a whole block device with zeros, as pve's {@code secure_delete_cmd} does (LVM
 * saferemove, {@code vsm wipe}). The framework chooses how: the fastest way the device offers,
 * throttled to {@code throughput} only where it has to fall back to writing zeros itself. Progress
 * goes to the context's console.
 *
 * <p>Only a block device is ever written: a regular file, a directory or a missing path is
 * refused before anything runs (pve bug #6941: an LV that was not activated has no node, and
 * zeroing "through" the missing path would write a file). Under {@code --dry-run} what would run is
 * printed, nothing is written; a path that does not exist yet is then accepted, because the
 * activation that would create it was not run either.
 */
public interface ZeroOut {
    /** pve's default {@code saferemove-stepsize}, in MiB. */
    int DEFAULT_STEP_MIB = 32;

    /** pve's default {@code saferemove_throughput}: a negative value means "at most, don't throttle". */
    String DEFAULT_THROUGHPUT = "-10485760";

    /**
     * A throughput ({@code saferemove_throughput}): bytes per second, negative for a limit per
     * write, with an optional k, m or g suffix, at most 15 digits.
     */
    String THROUGHPUT_REGEX = "-?[0-9]{1,15}[kmgKMG]?";

    /**
     * Zeroes the whole device.
     *
     * @param device     the block device (a symlink such as {@code /dev/VG/LV} is followed)
     * @param stepMiB    how much to zero per request, in MiB ({@code saferemove-stepsize}), at least
     *                   1; the framework lowers it to what the device takes
     * @param throughput the limit for the fall-back ({@code saferemove_throughput}), or null for
     *                   {@link #DEFAULT_THROUGHPUT}
     * @throws StorageException {@link StorageException.Kind#BAD_INPUT} when the path is not a block
     *         device or the step is not positive (nothing ran); {@link StorageException.Kind#FAILED}
     *         when the tool fails
     * @throws InterruptedCommandException when Ctrl-C or SIGTERM stopped the wipe: the device is
     *         partly zeroed, and nothing that was to follow the wipe (an {@code lvremove}) may run
     */
    void zero(Path device, int stepMiB, String throughput);
}
