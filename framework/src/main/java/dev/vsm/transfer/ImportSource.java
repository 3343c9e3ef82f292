package dev.vsm.transfer;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.SourceImage;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import dev.vsm.trust.PathState;
import java.nio.file.Path;

/**
 * The image an import reads, held open for the import: closing it removes a temporary copy (a
 * disk extracted from an OVA); for other sources it does nothing.
 *
 * @param image   the image to read
 * @param shown   the source as messages name it: the volume id of a volume, else the image's path
 * @param release removes a temporary copy
 * @param state   the path as it was when the image was inspected, or null for a volume vsm made
 */
public record ImportSource(SourceImage image, String shown, Runnable release, PathState state)
        implements AutoCloseable {
    public ImportSource {
        requireNonNull(image, "image");
        requireNonNull(shown, "shown");
        requireNonNull(release, "release");
    }

    /**
     * Refuses (bad input) a source that was written, replaced or renamed since it was inspected:
     * then qemu-img may have read another image than the one vsm checked.
     */
    void checkUnchanged() {
        Path changed = state == null ? null : state.changed();
        if (changed != null) {
            throw StorageException.badInput(
                    "source '%s' changed while vsm read it ('%s' was written, replaced or renamed): "
                            + "nothing was imported; import it once nothing changes it",
                    VolumeId.printable(shown), VolumeId.printable(changed.toString()));
        }
    }

    @Override
    public void close() {
        release.run();
    }
}
