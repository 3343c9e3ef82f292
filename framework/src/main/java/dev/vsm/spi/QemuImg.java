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
}
