package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

/**
 * A request to make a new volume from an image ({@code vsm import}, {@code vsm copy}).
 *
 * @param vmid   the owning guest
 * @param name   the wanted volume name, or null for the next free one
 * @param format the new volume's format
 * @param source the image to copy into it
 */
public record ImageImport(int vmid, String name, VolumeFormat format, SourceImage source) {
    public ImageImport {
        requireNonNull(format, "format");
        requireNonNull(source, "source");
        if (vmid <= 0) {
            throw new IllegalArgumentException("vmid must be positive: " + vmid);
        }
    }
}
