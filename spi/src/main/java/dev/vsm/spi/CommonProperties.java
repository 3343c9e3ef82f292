package dev.vsm.spi;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/** Properties shared by several storage types (pve's base plugin properties), ready to list in a schema. */
public final class CommonProperties {
    public static final String CONTENT = "content";
    public static final String NODES = "nodes";
    public static final String DISABLE = "disable";
    public static final String SHARED = "shared";
    public static final String FORMAT = "format";
    public static final String PREALLOCATION = "preallocation";
    public static final String QCOW2_SUBCLUSTERS = "qcow2-subclusters";
    public static final String QCOW2_CLUSTER_SIZE = "qcow2-cluster-size";

    /** pve's node name syntax. */
    public static final String NODE_NAME_PATTERN = "^[a-zA-Z0-9]([a-zA-Z0-9\\-]*[a-zA-Z0-9])?$";
    /** qemu-img cluster sizes: a power of two from 512 bytes to 2 MiB, with an optional k/M suffix. */
    public static final String CLUSTER_SIZE_PATTERN =
            "^(?:512|1024|2048|4096|8192|16384|32768|65536|131072|262144|524288|1048576|2097152"
                    + "|(?:1|2|4|8|16|32|64|128|256|512|1024|2048)[kK]|[12][mM])$";

    private CommonProperties() {}

    public static PropertySpec content(Collection<ContentType> valid) {
        return PropertySpec.list(CONTENT, "content types the storage holds")
                .withAllowed(valid.stream().map(ContentType::id).sorted().toList());
    }

    public static PropertySpec nodes() {
        return PropertySpec.list(NODES, "nodes the storage is available on (all when absent)")
                .withPattern(NODE_NAME_PATTERN);
    }

    public static PropertySpec disable() {
        return PropertySpec.bool(DISABLE, "disable the storage").withDefault(false);
    }

    public static PropertySpec shared() {
        return PropertySpec.bool(SHARED, "the storage is shared by all nodes (it is not made shared by this flag)")
                .withDefault(false);
    }

    public static PropertySpec format(List<VolumeFormat> formats) {
        return PropertySpec.oneOf(
                FORMAT,
                "default image format",
                formats.stream().map(VolumeFormat::id).toList());
    }

    public static PropertySpec preallocation() {
        return PropertySpec.oneOf(
                        PREALLOCATION,
                        "preallocation mode for raw and qcow2 images",
                        Arrays.stream(Preallocation.values())
                                .map(Preallocation::id)
                                .toList())
                .withDefault(Preallocation.METADATA.id());
    }

    public static PropertySpec qcow2Subclusters() {
        return PropertySpec.oneOf(
                        QCOW2_SUBCLUSTERS,
                        "qcow2 subcluster allocation (extended_l2): auto = for backed images, on = every qcow2, off = never",
                        List.of("auto", "on", "off"))
                .withDefault("auto");
    }

    public static PropertySpec qcow2ClusterSize() {
        return PropertySpec.string(
                        QCOW2_CLUSTER_SIZE,
                        "qcow2 cluster size (512 .. 2M, a power of two; at least 16k with subclusters)")
                .withPattern(CLUSTER_SIZE_PATTERN);
    }

    /** pve's {@code bwlimit}: I/O bandwidth limits per operation (read by the engine). */
    public static PropertySpec bwlimit() {
        return PropertySpec.string(
                "bwlimit", "I/O bandwidth limits in KiB/s, as default=N,restore=N,migration=N,clone=N,move=N");
    }
}
