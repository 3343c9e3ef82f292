package dev.vsm.api;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.VolumeFormat;
import java.util.List;
import java.util.Set;

/** One storage as {@link VsmStorage#status} reports it: a row of {@code vsm status}. Sizes are bytes. */
public final class StorageState {
    private final String storage;
    private final String type;
    private final Set<ContentType> content;
    private final boolean enabled;
    private final boolean shared;
    private final boolean active;
    private final long total;
    private final long used;
    private final long avail;
    private final List<String> warnings;
    private final Set<VolumeFormat> formats;
    private final VolumeFormat defaultFormat;

    StorageState(
            String storage,
            String type,
            Set<ContentType> content,
            boolean enabled,
            boolean shared,
            boolean active,
            long total,
            long used,
            long avail,
            List<String> warnings,
            Set<VolumeFormat> formats,
            VolumeFormat defaultFormat) {
        this.storage = storage;
        this.type = type;
        this.content = Set.copyOf(content);
        this.enabled = enabled;
        this.shared = shared;
        this.active = active;
        this.total = total;
        this.used = used;
        this.avail = avail;
        this.warnings = List.copyOf(warnings);
        this.formats = Set.copyOf(formats);
        this.defaultFormat = defaultFormat;
    }

    /** The storage id. */
    public String storage() {
        return storage;
    }

    /** Its type ({@code dir}, {@code lvm}, {@code lvmthin}, a drop-in's). */
    public String type() {
        return type;
    }

    /** The content types it holds. */
    public Set<ContentType> content() {
        return content;
    }

    /** Not disabled, and available on this node. */
    public boolean enabled() {
        return enabled;
    }

    public boolean shared() {
        return shared;
    }

    /** Activated and reporting; a storage that failed to is inactive (and its failure was warned about). */
    public boolean active() {
        return active;
    }

    public long total() {
        return total;
    }

    public long used() {
        return used;
    }

    public long avail() {
        return avail;
    }

    /** What the storage warned about (a thin pool nearly full, ...). */
    public List<String> warnings() {
        return warnings;
    }

    @Override
    public String toString() {
        return "StorageState[storage=" + storage + ", type=" + type + ", enabled=" + enabled + ", active=" + active
                + ", total=" + total + ", used=" + used + ", avail=" + avail + "]";
    }

    /** The volume formats the storage supports (pve's {@code formats.supported}); empty when it is disabled. */
    public Set<VolumeFormat> formats() {
        return formats;
    }

    /** The format a new volume gets when none is asked for (pve's {@code formats.default}); null when it is disabled. */
    public VolumeFormat defaultFormat() {
        return defaultFormat;
    }
}
