package dev.vsm.spi;

import java.util.Locale;
import java.util.Objects;

/**
 * How a storage wants its images made: the preallocation mode and qcow2 subcluster settings.
 * The framework turns these into qemu-img options (one place, {@code QemuImgCommands});
 * plugins hand them over through {@link Storage#imageOptions()}.
 *
 * <p>Made with {@link #of(Preallocation, Subclusters, Integer)} or {@link #of(StorageConfig)}, so
 * that it can gain fields without breaking plugins built against an older SPI.
 */
public final class ImageOptions {
    public static final ImageOptions DEFAULTS = of(null, Subclusters.AUTO, null);

    public enum Subclusters {
        /** Backed images (linked clones, overlays) get subclusters, where they pay. */
        AUTO,
        /** Every qcow2 image gets subclusters. */
        ON,
        /** No image gets subclusters. */
        OFF
    }

    private final Preallocation preallocation;
    private final Subclusters subclusters;
    private final Integer clusterSize;

    private ImageOptions(Preallocation preallocation, Subclusters subclusters, Integer clusterSize) {
        this.preallocation = preallocation;
        this.subclusters = subclusters == null ? Subclusters.AUTO : subclusters;
        this.clusterSize = clusterSize;
    }

    /**
     * @param preallocation the configured preallocation mode, or null for each format's default
     * @param subclusters   when qcow2 images get {@code extended_l2=on} (null: {@link Subclusters#AUTO})
     * @param clusterSize   the qcow2 cluster size in bytes, or null for the default (64k, 128k with subclusters)
     */
    public static ImageOptions of(Preallocation preallocation, Subclusters subclusters, Integer clusterSize) {
        return new ImageOptions(preallocation, subclusters, clusterSize);
    }

    /** Reads {@code preallocation}, {@code qcow2-subclusters} and {@code qcow2-cluster-size} from a storage's config. */
    public static ImageOptions of(StorageConfig config) {
        Preallocation prealloc = config.string(CommonProperties.PREALLOCATION)
                .map(Preallocation::parse)
                .orElse(null);
        Subclusters sub = config.string(CommonProperties.QCOW2_SUBCLUSTERS)
                .map(s -> Subclusters.valueOf(s.toUpperCase(Locale.ROOT)))
                .orElse(Subclusters.AUTO);
        Integer cluster = config.string(CommonProperties.QCOW2_CLUSTER_SIZE)
                .map(ImageOptions::parseClusterSize)
                .orElse(null);
        return new ImageOptions(prealloc, sub, cluster);
    }

    /** The configured preallocation mode, or null for each format's default. */
    public Preallocation preallocation() {
        return preallocation;
    }

    /** When qcow2 images get {@code extended_l2=on}. */
    public Subclusters subclusters() {
        return subclusters;
    }

    /** The qcow2 cluster size in bytes, or null for the default (64k, 128k with subclusters). */
    public Integer clusterSize() {
        return clusterSize;
    }

    /** Parses a cluster size such as {@code 65536}, {@code 128k} or {@code 2M} into bytes. */
    public static int parseClusterSize(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        long mult = 1;
        if (s.endsWith("k")) {
            mult = 1024;
            s = s.substring(0, s.length() - 1);
        } else if (s.endsWith("m")) {
            mult = 1024 * 1024;
            s = s.substring(0, s.length() - 1);
        }
        long bytes;
        try {
            bytes = Long.parseLong(s) * mult;
        } catch (NumberFormatException e) {
            throw StorageException.badInput("invalid qcow2 cluster size '%s'", text);
        }
        if (bytes < 512 || bytes > 2 * 1024 * 1024 || Long.bitCount(bytes) != 1) {
            throw StorageException.badInput(
                    "invalid qcow2 cluster size '%s': must be a power of two from 512 to 2M", text);
        }
        return (int) bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ImageOptions that
                && preallocation == that.preallocation
                && subclusters == that.subclusters
                && Objects.equals(clusterSize, that.clusterSize);
    }

    @Override
    public int hashCode() {
        return Objects.hash(preallocation, subclusters, clusterSize);
    }

    @Override
    public String toString() {
        return "ImageOptions[preallocation=" + preallocation + ", subclusters=" + subclusters + ", clusterSize="
                + clusterSize + "]";
    }
}
