package dev.vsm.spi;

/**
 * An external command was stopped before it finished, by Ctrl-C or SIGTERM (vsm is shutting
 * down). Unlike other failures it is never just warned about: whatever was to follow the command
 * must not run, and the work is left for a later run. The command line exits non-zero.
 */
public class InterruptedCommandException extends StorageException {
    private static final long serialVersionUID = 1L;

    public InterruptedCommandException(String message) {
        super(Kind.FAILED, message);
    }
}
