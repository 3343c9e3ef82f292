package dev.vsm.config;

import dev.vsm.spi.StorageException;

/**
 * The configuration's store cannot be reached (cluster mode without quorum): {@link Kind#FAILED},
 * nothing was changed. {@link ConfigStore} passes it on as it is, without pve's
 * {@code update storage failed: } prefix, so that every command says it in the same words.
 */
public final class ConfigUnavailableException extends StorageException {
    private static final long serialVersionUID = 1L;

    public ConfigUnavailableException(String message) {
        super(Kind.FAILED, message);
    }
}
