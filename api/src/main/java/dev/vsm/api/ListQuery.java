package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;

/** Which volumes {@link VsmStorage#list} lists ({@code vsm list}). */
public final class ListQuery {
    private final String storage;
    private final ContentType content;
    private final Integer vmid;

    private ListQuery(String storage, ContentType content, Integer vmid) {
        this.storage = requireNonNull(storage, "storage");
        this.content = content;
        this.vmid = vmid;
    }

    /** Every volume of {@code storage}, of every content type it holds. */
    public static ListQuery of(String storage) {
        return new ListQuery(storage, null, null);
    }

    /** Only volumes of this content type (null: all the storage holds). */
    public ListQuery content(ContentType type) {
        return new ListQuery(storage, type, vmid);
    }

    /** Only volumes of this guest (null: all). */
    public ListQuery vmid(Integer owner) {
        return new ListQuery(storage, content, owner);
    }

    public String storage() {
        return storage;
    }

    public ContentType content() {
        return content;
    }

    public Integer vmid() {
        return vmid;
    }
}
