package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One layer of a volume's snapshots, as pve's {@code volume_snapshot_info} (plugin API 15) reports
 * it: {@code current} (the live volume) or a snapshot, with its place in the chain and where it is.
 *
 * <p>For a volume chain ({@code snapshot-as-volume-chain}) every layer is an image of its own:
 * {@code order} counts from 0 ({@code current}) to the oldest snapshot, {@code parent} is the layer
 * below (older), {@code child} the one above, and {@code path}, {@code volid}, {@code virtualSize}
 * are the layer's image's. Snapshots kept inside one image (internal qcow2 snapshots) or beside
 * the volume (LVM-thin) have no image of their own in a chain: they report what they have (a
 * creation time, a device), and the fields they have not are null.
 *
 * <p>Made with {@link #builder(String)}, so that it can gain fields.
 */
public final class SnapshotLayer {
    /** The name {@code current} stands for the live volume under. */
    public static final String CURRENT = "current";

    private final String name;
    private final int order;
    private final String parent;
    private final String child;
    private final Path path;
    private final String volid;
    private final Long virtualSize;
    private final Long ctime;

    private SnapshotLayer(Builder b) {
        this.name = requireNonNull(b.name, "name");
        this.order = b.order;
        this.parent = b.parent;
        this.child = b.child;
        this.path = b.path;
        this.volid = b.volid;
        this.virtualSize = b.virtualSize;
        this.ctime = b.ctime;
    }

    /** A builder for the layer of snapshot {@code name}, or of the live volume for {@link #CURRENT}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** A builder that starts from this layer's fields. */
    public Builder toBuilder() {
        return new Builder(name)
                .order(order)
                .parent(parent)
                .child(child)
                .path(path)
                .volid(volid)
                .virtualSize(virtualSize)
                .ctime(ctime);
    }

    /** The snapshot's name, or {@link #CURRENT} for the live volume. */
    public String name() {
        return name;
    }

    public boolean isCurrent() {
        return CURRENT.equals(name);
    }

    /** 0 for {@code current}, then 1, 2, ... down to the oldest snapshot (pve's {@code order}). */
    public int order() {
        return order;
    }

    /** The layer below this one (its backing image): a snapshot's name; null for the oldest, or where there is no chain. */
    public String parent() {
        return parent;
    }

    /** The layer above this one: a snapshot's name or {@link #CURRENT}; null for {@code current}, or where there is no chain. */
    public String child() {
        return child;
    }

    /** The layer's file or block device (pve's {@code file}); null when it has none of its own. */
    public Path path() {
        return path;
    }

    /** The layer's volume id (pve's {@code volid}, {@code <storage>:<layer's volume name>}); null when it has none. */
    public String volid() {
        return volid;
    }

    /** The layer's virtual size in bytes (pve's {@code virtual-size}); null when unknown. */
    public Long virtualSize() {
        return virtualSize;
    }

    /** When the layer was made, in seconds since the epoch (pve's {@code timestamp}); null when unknown. */
    public Long ctime() {
        return ctime;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SnapshotLayer other)) {
            return false;
        }
        return order == other.order
                && name.equals(other.name)
                && Objects.equals(parent, other.parent)
                && Objects.equals(child, other.child)
                && Objects.equals(path, other.path)
                && Objects.equals(volid, other.volid)
                && Objects.equals(virtualSize, other.virtualSize)
                && Objects.equals(ctime, other.ctime);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, order, parent, child, path, volid, virtualSize, ctime);
    }

    @Override
    public String toString() {
        return "SnapshotLayer[name=" + name + ", order=" + order + ", parent=" + parent + ", child=" + child + ", path="
                + path + ", volid=" + volid + ", virtualSize=" + virtualSize + ", ctime=" + ctime + "]";
    }

    /** Builds a {@link SnapshotLayer}. */
    public static final class Builder {
        private final String name;
        private int order;
        private String parent;
        private String child;
        private Path path;
        private String volid;
        private Long virtualSize;
        private Long ctime;

        private Builder(String name) {
            this.name = requireNonNull(name, "name");
        }

        public Builder order(int order) {
            this.order = order;
            return this;
        }

        public Builder parent(String parent) {
            this.parent = parent;
            return this;
        }

        public Builder child(String child) {
            this.child = child;
            return this;
        }

        public Builder path(Path path) {
            this.path = path;
            return this;
        }

        public Builder volid(String volid) {
            this.volid = volid;
            return this;
        }

        public Builder virtualSize(Long bytes) {
            this.virtualSize = bytes;
            return this;
        }

        public Builder ctime(Long seconds) {
            this.ctime = seconds;
            return this;
        }

        public SnapshotLayer build() {
            return new SnapshotLayer(this);
        }
    }
}
