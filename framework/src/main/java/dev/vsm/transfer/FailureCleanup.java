package dev.vsm.transfer;

import dev.vsm.engine.StorageManager;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;

/** Removing a volume whose import failed, and saying so in the one line the failure prints. */
final class FailureCleanup {
    private FailureCleanup() {}

    /**
     * Frees {@code volid} after {@code cause} and returns the exception to throw: the cause's
     * message and kind, plus that the volume was removed again, or which volume stays and how to
     * remove it when that failed too (vsm is being stopped and may start no command).
     */
    static StorageException free(StorageManager manager, VolumeId volid, RuntimeException cause) {
        StorageException.Kind kind = cause instanceof StorageException se ? se.kind() : StorageException.Kind.FAILED;
        String message = cause instanceof StorageException ? cause.getMessage() : String.valueOf(cause);
        try {
            manager.free(volid);
            return new StorageException(kind, message + " (removed '" + volid + "' again)", cause);
        } catch (StorageException e) {
            return new StorageException(
                    kind,
                    message + "; the partly written volume '" + volid + "' could not be removed (" + e.getMessage()
                            + "): remove it with 'vsm free " + volid + "'",
                    cause);
        }
    }
}
