package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * The file to read a volume from as the source of an import or copy ({@link Storage#sourceFile}):
 * the volume's own path, or a temporary copy for a volume that is no file of its own (a disk inside
 * an OVA), which {@link #close()} removes.
 *
 * @param path    the file (or block device) to read
 * @param format  its image format ({@code vmdk} for a volume of format {@code ova+vmdk})
 * @param release removes a temporary copy; nothing for the volume's own path
 */
public record SourceFile(Path path, String format, Runnable release) implements AutoCloseable {
    public SourceFile {
        requireNonNull(path, "path");
        requireNonNull(format, "format");
        requireNonNull(release, "release");
    }

    @Override
    public void close() {
        release.run();
    }
}
