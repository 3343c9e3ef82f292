package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * The file to read a volume from as the source of an import or copy ({@link Storage#sourceFile}):
 * the volume's own path, or a temporary copy for a volume that is no file of its own (a disk inside
 * an OVA), which {@link #close()} removes.
 *
 * <p>Made with {@link #of} or {@link #temporary}, so that it can gain fields without breaking
 * plugins built against an older SPI.
 */
public final class SourceFile implements AutoCloseable {
    private final Path path;
    private final String format;
    private final Runnable release;

    private SourceFile(Path path, String format, Runnable release) {
        this.path = requireNonNull(path, "path");
        this.format = requireNonNull(format, "format");
        this.release = requireNonNull(release, "release");
    }

    /** A volume's own file (or block device) in {@code format}: closing it does nothing. */
    public static SourceFile of(Path path, String format) {
        return new SourceFile(path, format, () -> {});
    }

    /** A temporary copy in {@code format}, which {@code release} removes when it is closed. */
    public static SourceFile temporary(Path path, String format, Runnable release) {
        return new SourceFile(path, format, release);
    }

    /** The file (or block device) to read. */
    public Path path() {
        return path;
    }

    /** Its image format ({@code vmdk} for a volume of format {@code ova+vmdk}). */
    public String format() {
        return format;
    }

    /** What removes a temporary copy; nothing for the volume's own path. */
    public Runnable release() {
        return release;
    }

    @Override
    public void close() {
        release.run();
    }

    @Override
    public String toString() {
        return "SourceFile[path=" + path + ", format=" + format + "]";
    }
}
