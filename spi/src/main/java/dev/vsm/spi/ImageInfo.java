package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.Objects;

/**
 * What a volume's image says about itself (pve's {@code volume_size_info} and a bit more).
 *
 * <p>Made with {@link #builder(VolumeFormat)} (or {@link #builder(String)} for a format that is no
 * {@link VolumeFormat}, as qemu-img names it), so that it can gain fields without breaking plugins
 * built against an older SPI:
 * {@code ImageInfo.builder(VolumeFormat.RAW).virtualSize(size).actualSize(size).build()}.
 */
public final class ImageInfo {
    private final long virtualSize;
    private final String format;
    private final long actualSize;
    private final String backingFile;
    private final String backingFormat;
    private final Integer clusterSize;
    private final boolean extendedL2;
    private final Long ctime;

    private ImageInfo(Builder b) {
        this.virtualSize = b.virtualSize;
        this.format = requireNonNull(b.format, "format");
        this.actualSize = b.actualSize;
        this.backingFile = b.backingFile;
        this.backingFormat = b.backingFormat;
        this.clusterSize = b.clusterSize;
        this.extendedL2 = b.extendedL2;
        this.ctime = b.ctime;
    }

    /**
     * A builder for an image of {@code format}, as qemu-img names it (raw, qcow2, vdi, vhdx, ...);
     * every other field starts at 0, false or null.
     */
    public static Builder builder(String format) {
        return new Builder(format);
    }

    /** A builder for an image in one of vsm's formats; otherwise as {@link #builder(String)}. */
    public static Builder builder(VolumeFormat format) {
        return new Builder(format.id());
    }

    /** A builder that starts from this image's fields. */
    public Builder toBuilder() {
        return new Builder(format)
                .virtualSize(virtualSize)
                .actualSize(actualSize)
                .backingFile(backingFile)
                .backingFormat(backingFormat)
                .clusterSize(clusterSize)
                .extendedL2(extendedL2)
                .ctime(ctime);
    }

    /** The guest-visible size in bytes. */
    public long virtualSize() {
        return virtualSize;
    }

    /** The image format, as qemu-img names it: raw, qcow2, vmdk, vdi, vhdx, ... */
    public String format() {
        return format;
    }

    /** Whether the image is in {@code f}. */
    public boolean hasFormat(VolumeFormat f) {
        return f.is(format);
    }

    /** Bytes allocated on the host. */
    public long actualSize() {
        return actualSize;
    }

    /** The backing file as recorded in the image, or null. */
    public String backingFile() {
        return backingFile;
    }

    /** The backing file's format, or null. */
    public String backingFormat() {
        return backingFormat;
    }

    /** The qcow2 cluster size in bytes, or null for other formats. */
    public Integer clusterSize() {
        return clusterSize;
    }

    /** qcow2 subcluster allocation (extended L2 entries); false for other formats. */
    public boolean extendedL2() {
        return extendedL2;
    }

    /** The change time in seconds since the epoch, or null. */
    public Long ctime() {
        return ctime;
    }

    /**
     * The L2 cache, in bytes, that keeps all of this image's cluster mapping in memory:
     * {@code virtual_size * 8 / cluster_size}, {@code * 16} with extended L2 entries. Null for
     * formats without L2 tables.
     */
    public Long l2CacheBytes() {
        if (clusterSize == null || clusterSize <= 0) {
            return null;
        }
        long entry = extendedL2 ? 16 : 8;
        long clusters = (virtualSize + clusterSize - 1) / clusterSize;
        return clusters * entry;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ImageInfo that
                && virtualSize == that.virtualSize
                && actualSize == that.actualSize
                && extendedL2 == that.extendedL2
                && format.equals(that.format)
                && Objects.equals(backingFile, that.backingFile)
                && Objects.equals(backingFormat, that.backingFormat)
                && Objects.equals(clusterSize, that.clusterSize)
                && Objects.equals(ctime, that.ctime);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                virtualSize, format, actualSize, backingFile, backingFormat, clusterSize, extendedL2, ctime);
    }

    @Override
    public String toString() {
        return "ImageInfo[virtualSize=" + virtualSize + ", format=" + format + ", actualSize=" + actualSize
                + ", backingFile=" + backingFile + ", backingFormat=" + backingFormat + ", clusterSize=" + clusterSize
                + ", extendedL2=" + extendedL2 + ", ctime=" + ctime + "]";
    }

    /** Builds an {@link ImageInfo}. */
    public static final class Builder {
        private long virtualSize;
        private final String format;
        private long actualSize;
        private String backingFile;
        private String backingFormat;
        private Integer clusterSize;
        private boolean extendedL2;
        private Long ctime;

        private Builder(String format) {
            this.format = requireNonNull(format, "format");
        }

        public Builder virtualSize(long bytes) {
            this.virtualSize = bytes;
            return this;
        }

        public Builder actualSize(long bytes) {
            this.actualSize = bytes;
            return this;
        }

        public Builder backingFile(String file) {
            this.backingFile = file;
            return this;
        }

        public Builder backingFormat(String fmt) {
            this.backingFormat = fmt;
            return this;
        }

        public Builder clusterSize(Integer bytes) {
            this.clusterSize = bytes;
            return this;
        }

        public Builder extendedL2(boolean on) {
            this.extendedL2 = on;
            return this;
        }

        public Builder ctime(Long seconds) {
            this.ctime = seconds;
            return this;
        }

        public ImageInfo build() {
            return new ImageInfo(this);
        }
    }
}
