package dev.vsm.config;

import dev.vsm.spi.StorageException;

/**
 * The configuration's store cannot be used: in cluster mode, no quorum ({@link Kind#FAILED}) or
 * no configuration stored yet ({@link Kind#BAD_INPUT}); nothing was changed. {@link ConfigStore}
 * passes it on as it is, without pve's {@code update storage failed: } prefix, so that every
 * command says it in the same words.
 */
public final class ConfigUnavailableException extends StorageException {
    private static final long serialVersionUID = 1L;

    public ConfigUnavailableException(String message) {
        this(Kind.FAILED, message);
    }

    public ConfigUnavailableException(Kind kind, String message) {
        super(kind, message);
    }
}
