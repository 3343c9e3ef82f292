package dev.vsm.spi;

import java.nio.file.Path;

/**
 * The framework's one zero-out engine, behind LVM saferemove and {@code vsm wipe}: overwrites a
 * whole block device with zeros, as pve's {@code secure_delete_cmd} does.
 *
 * <p>The device is resolved to its kernel name ({@code /dev/VG/LV} to {@code /dev/dm-N}, a
 * partition to its parent disk's queue) and its {@code <sysfs>/block/<dev>/queue/write_zeroes_max_bytes}
 * read ({@code <sysfs>} is {@code $VSM_SYSFS}, else {@code /sys}). When the device can write zeroes,
 * {@code blkdiscard <dev> -v --zeroout --step <bytes>} runs with the step clamped to that maximum
 * (printing {@code reduce stepsize to the maximum supported by the storage: <n> bytes}); when it
 * cannot (the maximum is 0 or unreadable), it falls back to
 * {@code cstream -i /dev/zero -o <dev> -T 10 -v 1 -b 1048576 -t <throughput>}, whose closing
 * "No space left on device" is the normal end. Progress goes to the context's console.
 *
 * <p>Only a block device is ever written: a regular file, a directory or a missing path is
 * refused before anything runs (pve bug #6941: an LV that was not activated has no node, and
 * zeroing "through" the missing path would write a file). Under {@code --dry-run} the command is
 * printed, not run; a path that does not exist yet is then accepted, because the activation
 * that would create it was not run either.
 */
public interface ZeroOut {
    /** pve's default {@code saferemove-stepsize}, in MiB. */
    int DEFAULT_STEP_MIB = 32;

    /** pve's default cstream throughput ({@code -t}): a negative value means "at most, don't throttle". */
    String DEFAULT_THROUGHPUT = "-10485760";

    /**
     * A throughput cstream takes ({@code -t}): bytes per second, negative for a limit per write,
     * with an optional k, m or g suffix, at most 15 digits.
     */
    String THROUGHPUT_REGEX = "-?[0-9]{1,15}[kmgKMG]?";

    /**
     * Zeroes the whole device.
     *
     * @param device     the block device (a symlink such as {@code /dev/VG/LV} is followed)
     * @param stepMiB    the blkdiscard step in MiB ({@code saferemove-stepsize}), at least 1
     * @param throughput cstream's {@code -t} for the fallback ({@code saferemove_throughput}), or
     *                   null for {@link #DEFAULT_THROUGHPUT}
     * @throws StorageException {@link StorageException.Kind#BAD_INPUT} when the path is not a block
     *         device or the step is not positive (nothing ran); {@link StorageException.Kind#FAILED}
     *         when the tool fails
     * @throws InterruptedCommandException when Ctrl-C or SIGTERM stopped the wipe: the device is
     *         partly zeroed, and nothing that was to follow the wipe (an {@code lvremove}) may run
     */
    void zero(Path device, int stepMiB, String throughput);
}
