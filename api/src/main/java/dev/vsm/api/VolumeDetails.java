package dev.vsm.api;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.Feature;
import dev.vsm.spi.SnapshotLayer;
import dev.vsm.spi.VolumeId;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** What {@link VsmStorage#info} tells of a volume ({@code vsm info}). Sizes are bytes. */
public final class VolumeDetails {
    private final VolumeId volume;
    private final Path path;
    private final ContentType content;
    private final Integer vmid;
    private final boolean base;
    private final String format;
    private final long size;
    private final long used;
    private final VolumeId backing;
    private final Set<Feature> features;
    private final List<String> snapshots;
    private final List<SnapshotLayer> layers;

    VolumeDetails(
            VolumeId volume,
            Path path,
            ContentType content,
            Integer vmid,
            boolean base,
            String format,
            long size,
            long used,
            VolumeId backing,
            Set<Feature> features,
            List<String> snapshots,
            List<SnapshotLayer> layers) {
        this.volume = volume;
        this.path = path;
        this.content = content;
        this.vmid = vmid;
        this.base = base;
        this.format = format;
        this.size = size;
        this.used = used;
        this.backing = backing;
        this.features = Set.copyOf(features);
        this.snapshots = List.copyOf(snapshots);
        this.layers = List.copyOf(layers);
    }

    public VolumeId volume() {
        return volume;
    }

    /** Where it lives. */
    public Path path() {
        return path;
    }

    public ContentType content() {
        return content;
    }

    /** Its owner; null for a volume of no guest (an iso, a template). */
    public Integer vmid() {
        return vmid;
    }

    /** A base volume (read-only, the source of linked clones). */
    public boolean base() {
        return base;
    }

    /** The image's format as qemu-img or the storage tells it. */
    public String format() {
        return format;
    }

    /** The virtual size. */
    public long size() {
        return size;
    }

    /** The space it takes. */
    public long used() {
        return used;
    }

    /** The base volume of a linked clone; null for any other volume. */
    public VolumeId backing() {
        return backing;
    }

    /** What the storage can do with it (clone, snapshot, ...). */
    public Set<Feature> features() {
        return features;
    }

    /** Its snapshots, oldest first. */
    public List<String> snapshots() {
        return snapshots;
    }

    /** Every layer of its snapshots ({@link VsmStorage#snapshotInfo}); empty when it has none. */
    public List<SnapshotLayer> layers() {
        return layers;
    }

    @Override
    public String toString() {
        return "VolumeDetails[volume=" + volume + ", path=" + path + ", format=" + format + ", size=" + size
                + ", backing=" + backing + ", snapshots=" + snapshots + "]";
    }
}
