package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * An image to import, as the framework found it: checked to be readable and probed with
 * {@code qemu-img info}.
 *
 * @param path        the file or block device
 * @param format      its format ({@code raw}, {@code qcow2}, {@code vmdk}, {@code vdi}, {@code vhdx}, ...)
 * @param virtualSize the guest-visible size in bytes
 */
public record SourceImage(Path path, String format, long virtualSize) {
    /**
     * The KiB a volume of {@code targetFormat} needs to hold this image, for a volume that cannot
     * grow (an LV): the virtual size for raw, {@code qemu-img measure}'s {@code required} for other
     * formats (qcow2's metadata on top of the data); rounded up to whole KiB.
     */
    public long volumeSizeKib(VolumeFormat targetFormat, QemuImg qemuImg, ImageOptions options) {
        long bytes =
                targetFormat == VolumeFormat.RAW ? virtualSize : qemuImg.measure(path, format, targetFormat, options);
        return Math.max(1, (bytes + 1023) / 1024);
    }

    public SourceImage {
        requireNonNull(path, "path");
        requireNonNull(format, "format");
        if (virtualSize < 0) {
            throw new IllegalArgumentException("negative virtual size: " + virtualSize);
        }
    }
}
