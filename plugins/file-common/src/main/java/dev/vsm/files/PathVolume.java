package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;

/**
 * What a file path on a path-based storage stands for, judged from the path alone.
 *
 * @param type    the content type of the directory it lies in
 * @param volname the volume name; for an image always the plain {@code <vmid>/<name>} form, since
 *                whether it is a linked clone is recorded in the image, not in its path
 */
public record PathVolume(ContentType type, String volname) {
    public PathVolume {
        requireNonNull(type, "type");
        requireNonNull(volname, "volname");
    }
}
