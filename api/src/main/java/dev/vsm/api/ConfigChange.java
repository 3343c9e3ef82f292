package dev.vsm.api;

import dev.vsm.spi.StorageConfig;
import java.util.List;
import java.util.Optional;

/**
 * What {@link VsmStorage#addStorage}, {@link VsmStorage#updateStorage} or
 * {@link VsmStorage#removeStorage} did to one storage's section, or in a dry run would do.
 */
public final class ConfigChange {
    private final String storage;
    private final StorageConfig before;
    private final StorageConfig after;
    private final String digest;
    private final boolean written;
    private final List<String> dryRunLines;

    ConfigChange(
            String storage,
            StorageConfig before,
            StorageConfig after,
            String digest,
            boolean written,
            List<String> dryRunLines) {
        this.storage = storage;
        this.before = before;
        this.after = after;
        this.digest = digest;
        this.written = written;
        this.dryRunLines = List.copyOf(dryRunLines);
    }

    public String storage() {
        return storage;
    }

    /** The section before the change; empty for an add. */
    public Optional<StorageConfig> before() {
        return Optional.ofNullable(before);
    }

    /** The section after the change; empty for a remove. */
    public Optional<StorageConfig> after() {
        return Optional.ofNullable(after);
    }

    /** The configuration's digest after the change (pve's {@code digest}). */
    public String digest() {
        return digest;
    }

    /** Whether the configuration was written: false for a dry run and for a change that changes nothing. */
    public boolean written() {
        return written;
    }

    /** A dry run's {@code + ...} lines (the writes it would make); empty when nothing would change. */
    public List<String> dryRunLines() {
        return dryRunLines;
    }
}
