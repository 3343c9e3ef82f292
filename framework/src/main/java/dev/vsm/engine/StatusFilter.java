package dev.vsm.engine;

import dev.vsm.spi.CommonProperties;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.util.EnumSet;
import java.util.Set;

/**
 * Which storages {@code vsm status} shows, as pve's storage index filters them; {@link #ALL}
 * filters nothing.
 */
public final class StatusFilter {
    public static final StatusFilter ALL = new StatusFilter(null, null, false, null);

    private final String storage;
    private final Set<ContentType> content;
    private final boolean enabledOnly;
    private final String target;

    private StatusFilter(String storage, Set<ContentType> content, boolean enabledOnly, String target) {
        if (content != null && content.isEmpty()) {
            throw StorageException.badInput("content: no content type given");
        }
        if (target != null && !target.matches(CommonProperties.NODE_NAME_PATTERN)) {
            throw StorageException.badInput(
                    "target: invalid format - value does not look like a valid node name: '%s'",
                    VolumeId.printable(target));
        }
        this.storage = storage;
        this.content = content == null ? null : Set.copyOf(EnumSet.copyOf(content));
        this.enabledOnly = enabledOnly;
        this.target = target;
    }

    /** Only this storage (null: all); a storage the other filters leave out is refused as pve's {@code storage: No such storage.}. */
    public StatusFilter storage(String storageId) {
        return new StatusFilter(storageId, content, enabledOnly, target);
    }

    /** Only enabled storages holding at least one of these types (null: no filter). */
    public StatusFilter content(Set<ContentType> types) {
        return new StatusFilter(storage, types, enabledOnly, target);
    }

    /** Leave out storages disabled in the configuration. */
    public StatusFilter enabledOnly(boolean enabledOnly) {
        return new StatusFilter(storage, content, enabledOnly, target);
    }

    /** Another node (null: none): only shared storages available on this node and on it. */
    public StatusFilter target(String node) {
        return new StatusFilter(storage, content, enabledOnly, node);
    }

    public String storage() {
        return storage;
    }

    public Set<ContentType> content() {
        return content;
    }

    public boolean enabledOnly() {
        return enabledOnly;
    }

    public String target() {
        return target;
    }
}
