package dev.vsm.server.access;

/** Bad input to the access file or its commands (a bad id, path or privilege; an unsafe file): one line that says what to do. */
public final class AccessException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public AccessException(String message) {
        super(message);
    }
}
