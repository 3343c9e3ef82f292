package dev.vsm.spi;

/**
 * The volume named does not exist. {@link Storage#freeImage} throws it so that the engine can do
 * what pve does for a volume that is already gone: warn and succeed (scripts that clean up after a
 * migration free volumes that may be gone); elsewhere it is bad input like any other.
 */
public class NoSuchVolumeException extends StorageException {
    private static final long serialVersionUID = 1L;

    public NoSuchVolumeException(String message) {
        super(Kind.BAD_INPUT, message);
    }
}
