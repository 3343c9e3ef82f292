package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * One {@code qemu-img convert} of an image into a volume: what the framework needs to build the
 * argv ({@link QemuImg#convert}). How zero runs are written depends on what the target holds
 * before the convert ({@link TargetState}).
 *
 * @param source       the image to read (a file or a block device)
 * @param sourceFormat its format ({@code -f})
 * @param sizeBytes    the source's virtual size, for the progress display (0 when unknown)
 * @param target       the volume's file or block device
 * @param targetFormat its format ({@code -O})
 * @param targetState  what the target holds before the convert
 * @param options      the storage's image options (for a {@link TargetState#NEW} target)
 */
public record ImageConversion(Path source, String sourceFormat, long sizeBytes, Path target, String targetFormat,
                              TargetState targetState, ImageOptions options) {
    public ImageConversion {
        requireNonNull(source, "source");
        requireNonNull(sourceFormat, "sourceFormat");
        requireNonNull(target, "target");
        requireNonNull(targetFormat, "targetFormat");
        requireNonNull(targetState, "targetState");
        requireNonNull(options, "options");
    }

    /**
     * What the target holds before the convert. It decides whether qemu-img may skip zero runs:
     * skipping them on a target that is not known to read zeros leaves the previous owner's data in
     * place (pve bug #2050).
     */
    public enum TargetState {
        /** qemu-img creates the target file (with the storage's options): it reads zeros, runs are skipped. */
        NEW,
        /**
         * The target exists and is known to read zeros (a thin volume, a fresh LV on a storage whose
         * removals are zeroed by saferemove): {@code -n --target-is-zero}, runs are skipped.
         */
        ZEROED,
        /** The target exists and may hold old data (a thick LV): {@code -n -S 0}, every zero is written. */
        UNKNOWN
    }
}
