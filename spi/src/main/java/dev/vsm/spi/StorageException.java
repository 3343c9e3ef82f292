package dev.vsm.spi;

import java.util.Objects;

/**
 * The one exception type that crosses the SPI. Its {@link Kind} decides the exit status of the
 * command line: {@link Kind#BAD_INPUT} is 2 (nothing was changed), {@link Kind#FAILED} is 1.
 *
 * <p>Messages are one line, worded as pve words them where pve has a message.
 */
public class StorageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public enum Kind {
        /** The request was wrong: bad volume id, size, option, config. Nothing was changed. */
        BAD_INPUT,
        /** The request was fine but the operation failed. */
        FAILED
    }

    private final Kind kind;

    public StorageException(Kind kind, String message) {
        this(kind, message, null);
    }

    public StorageException(Kind kind, String message, Throwable cause) {
        super(Objects.requireNonNull(message, "message"), cause);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    public Kind kind() {
        return kind;
    }

    public static StorageException badInput(String format, Object... args) {
        return new StorageException(Kind.BAD_INPUT, args.length == 0 ? format : String.format(format, args));
    }

    public static StorageException failed(String format, Object... args) {
        return new StorageException(Kind.FAILED, args.length == 0 ? format : String.format(format, args));
    }

    public static StorageException failed(Throwable cause, String format, Object... args) {
        return new StorageException(Kind.FAILED, args.length == 0 ? format : String.format(format, args), cause);
    }
}
