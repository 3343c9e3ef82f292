package dev.vsm.transfer;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.SourceImage;

/**
 * The image an import reads, held open for the import: closing it removes a temporary copy (a
 * disk extracted from an OVA); for other sources it does nothing.
 *
 * @param image   the image to read
 * @param shown   the source as messages name it: the volume id of a volume, else the image's path
 * @param release removes a temporary copy
 */
public record ImportSource(SourceImage image, String shown, Runnable release) implements AutoCloseable {
    public ImportSource {
        requireNonNull(image, "image");
        requireNonNull(shown, "shown");
        requireNonNull(release, "release");
    }

    static ImportSource of(SourceImage image) {
        return new ImportSource(image, image.path().toString(), () -> {});
    }

    @Override
    public void close() {
        release.run();
    }
}
