package dev.vsm.spi;

import java.util.Locale;

/** Capabilities a volume may have, as asked by {@code volume_has_feature} in pve. */
public enum Feature {
    SNAPSHOT, CLONE, TEMPLATE, COPY, SPARSEINIT, RENAME;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
