package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Objects;

/**
 * An image to import, as the framework found it: checked to be readable and probed with
 * {@code qemu-img info}.
 */
public final class SourceImage {
    private final Path path;
    private final String format;
    private final long virtualSize;

    /**
     * @param path        the file or block device
     * @param format      its format ({@code raw}, {@code qcow2}, {@code vmdk}, {@code vdi}, {@code vhdx}, ...)
     * @param virtualSize the guest-visible size in bytes
     */
    public SourceImage(Path path, String format, long virtualSize) {
        requireNonNull(path, "path");
        requireNonNull(format, "format");
        if (virtualSize < 0) {
            throw new IllegalArgumentException("negative virtual size: " + virtualSize);
        }
        this.path = path;
        this.format = format;
        this.virtualSize = virtualSize;
    }

    public Path path() {
        return path;
    }

    public String format() {
        return format;
    }

    public long virtualSize() {
        return virtualSize;
    }

    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof SourceImage that
                        && Objects.equals(path, that.path)
                        && Objects.equals(format, that.format)
                        && virtualSize == that.virtualSize;
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, format, virtualSize);
    }

    @Override
    public String toString() {
        return "SourceImage[path=" + path + ", format=" + format + ", virtualSize=" + virtualSize + "]";
    }
}
