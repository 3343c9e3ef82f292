package dev.vsm.spi;

import java.nio.file.Path;

/**
 * qemu-img, as the framework runs it. Every argv and {@code -o} option string is built in the
 * framework from the {@link ImageOptions} a storage hands over, so the rules of preallocation
 * per format and of qcow2 subclusters live in one place.
 */
public interface QemuImg {
    /**
     * {@code qemu-img create [-o ...] -f <format> <path> <size>K}. Fails with
     * {@link StorageException.Kind#BAD_INPUT} before running anything if the preallocation mode
     * does not suit the format.
     */
    void create(Path path, String format, long sizeKib, ImageOptions options);

    /**
     * A qcow2 image backed by another image: {@code qemu-img create -F <fmt> -b <backing> -f qcow2 <path> -o ...},
     * run in {@code path}'s directory so that a relative {@code backing} resolves as qemu will.
     * The preallocation rule is that of the backing image's format (pve's clone rule).
     */
    void createBacked(Path path, String backing, String backingFormat, ImageOptions options);

    /** {@code qemu-img resize [--preallocation=<p>] -f <format> <path> <bytes>}. */
    void resize(Path path, String format, long sizeBytes, ImageOptions options);

    /** {@code qemu-img info --output=json [-f <format>] <path>}; format may be null to probe. */
    ImageInfo info(Path path, String format);

    /**
     * {@code qemu-img convert -p ...}: copies an image into a volume, showing progress (parsed from
     * qemu-img's {@code -p} output). The sparse size and {@code -n}/{@code --target-is-zero} follow
     * from {@link ImageConversion#targetState()}. Under {@code --dry-run} the argv is printed.
     *
     * @throws InterruptedCommandException when vsm was stopped (Ctrl-C, SIGTERM) during the convert
     */
    void convert(ImageConversion conversion);

    /**
     * {@code qemu-img measure -f <fmt> -O <target fmt> [-o ...] <source>}: the bytes an image of
     * {@code targetFormat} holding {@code source} needs (its {@code required} figure), to size a
     * volume that cannot grow (an LV).
     */
    long measure(Path source, String sourceFormat, String targetFormat, ImageOptions options);
}
