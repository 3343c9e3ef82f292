package dev.vsm.spi;

import java.util.Locale;

/**
 * Capabilities a volume may have, as asked by {@code volume_has_feature} in pve, answered per
 * volume by {@link Storage#hasFeature}. A feature that needs an {@link Operation} is only reported
 * for a storage that lists that operation in {@link Storage#operations()}.
 */
public enum Feature {
    SNAPSHOT(Operation.SNAPSHOT),
    CLONE(Operation.CLONE),
    TEMPLATE(Operation.CREATE_BASE),
    COPY(null),
    SPARSEINIT(null),
    RENAME(Operation.RENAME);

    private final Operation operation;

    Feature(Operation operation) {
        this.operation = operation;
    }

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The operation a storage must list for a volume to have this feature, or null when it needs none. */
    public Operation operation() {
        return operation;
    }
}
