package dev.vsm.transfer;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.SourceImage;

/**
 * The image an import reads, held open for the import: closing it removes a temporary copy (a
 * disk extracted from an OVA); for other sources it does nothing.
 */
public record ImportSource(SourceImage image, Runnable release) implements AutoCloseable {
    public ImportSource {
        requireNonNull(image, "image");
        requireNonNull(release, "release");
    }

    static ImportSource of(SourceImage image) {
        return new ImportSource(image, () -> {});
    }

    @Override
    public void close() {
        release.run();
    }
}
