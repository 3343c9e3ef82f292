package dev.vsm.api;

import dev.vsm.spi.ContentType;
import java.util.EnumSet;
import java.util.Set;

/** Which storages {@link VsmStorage#status} reports ({@code vsm status} and its filters). */
public final class StatusQuery {
    private final String storage;
    private final Set<ContentType> content;
    private final boolean enabledOnly;
    private final String target;

    private StatusQuery(String storage, Set<ContentType> content, boolean enabledOnly, String target) {
        this.storage = storage;
        this.content = content == null ? null : Set.copyOf(EnumSet.copyOf(content));
        this.enabledOnly = enabledOnly;
        this.target = target;
    }

    /** Every configured storage whose type is loaded. */
    public static StatusQuery all() {
        return new StatusQuery(null, null, false, null);
    }

    /** Only this storage; refused ({@code storage: No such storage.}) when the other filters leave it out, as pve. */
    public StatusQuery storage(String storageId) {
        return new StatusQuery(storageId, content, enabledOnly, target);
    }

    /** Only enabled storages that hold at least one of these content types (an empty set is refused). */
    public StatusQuery content(Set<ContentType> types) {
        return new StatusQuery(storage, types, enabledOnly, target);
    }

    /** Leave out the storages disabled in the configuration. */
    public StatusQuery enabledOnly(boolean enabledOnly) {
        return new StatusQuery(storage, content, enabledOnly, target);
    }

    /** Another node: only the shared storages available on this node and on it. */
    public StatusQuery target(String node) {
        return new StatusQuery(storage, content, enabledOnly, node);
    }

    public String storage() {
        return storage;
    }

    /** The content filter; null for none. */
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
