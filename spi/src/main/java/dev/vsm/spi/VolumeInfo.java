package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.Objects;

/**
 * One entry of a storage's volume listing (pve's {@code list_volumes} item).
 *
 * <p>Made with {@link #builder(String, VolumeFormat, ContentType)} (or, for a format that is no
 * {@link VolumeFormat}, {@link #builder(String, String, ContentType)}), so that it can gain fields
 * without breaking plugins built against an older SPI:
 * {@code VolumeInfo.builder(volid, VolumeFormat.RAW, ContentType.IMAGES).size(bytes).vmid(100).build()}.
 */
public final class VolumeInfo {
    private final String volid;
    private final String format;
    private final ContentType content;
    private final long size;
    private final boolean approximate;
    private final Long used;
    private final Integer vmid;
    private final Long ctime;
    private final String parent;
    private final BackupDetails backup;

    private VolumeInfo(Builder b) {
        this.volid = b.volid;
        this.format = b.format;
        this.content = b.content;
        this.size = b.size;
        this.approximate = b.approximate;
        this.used = b.used;
        this.vmid = b.vmid;
        this.ctime = b.ctime;
        this.parent = b.parent;
        this.backup = b.backup;
    }

    /**
     * A builder for the entry of {@code volid} ({@code storeid:volname}) in {@code format} (raw,
     * qcow2, iso, tzst, vma.zst, ...), listed under {@code content}; the other fields start at 0,
     * false or null.
     */
    public static Builder builder(String volid, String format, ContentType content) {
        return new Builder(volid, format, content);
    }

    /** A builder for an image in one of vsm's formats; otherwise as {@link #builder(String, String, ContentType)}. */
    public static Builder builder(String volid, VolumeFormat format, ContentType content) {
        return new Builder(volid, format.id(), content);
    }

    /** A builder that starts from this entry's fields. */
    public Builder toBuilder() {
        return new Builder(volid, format, content)
                .size(size)
                .approximate(approximate)
                .used(used)
                .vmid(vmid)
                .ctime(ctime)
                .parent(parent)
                .backup(backup);
    }

    /** The volume id, {@code storeid:volname}. */
    public String volid() {
        return volid;
    }

    /** raw, qcow2, iso, tzst, vma.zst, ... */
    public String format() {
        return format;
    }

    /** Whether the volume is in {@code f}. */
    public boolean hasFormat(VolumeFormat f) {
        return f.is(format);
    }

    /** The content type it is listed under. */
    public ContentType content() {
        return content;
    }

    /** The virtual size in bytes. */
    public long size() {
        return size;
    }

    /** True when {@link #size()} is only an estimate (pve's {@code approximate-size}). */
    public boolean approximate() {
        return approximate;
    }

    /** Bytes allocated on the host, or null when unknown. */
    public Long used() {
        return used;
    }

    /** The owner, or null. */
    public Integer vmid() {
        return vmid;
    }

    /** The creation/change time, seconds since the epoch, or null. */
    public Long ctime() {
        return ctime;
    }

    /** The backing file of a linked clone, or null. */
    public String parent() {
        return parent;
    }

    /** For a backup archive, its subtype, notes and protection; else null. */
    public BackupDetails backup() {
        return backup;
    }

    public VolumeInfo withContent(ContentType newContent) {
        return toBuilder().content(newContent).build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VolumeInfo that
                && size == that.size
                && approximate == that.approximate
                && volid.equals(that.volid)
                && format.equals(that.format)
                && content == that.content
                && Objects.equals(used, that.used)
                && Objects.equals(vmid, that.vmid)
                && Objects.equals(ctime, that.ctime)
                && Objects.equals(parent, that.parent)
                && Objects.equals(backup, that.backup);
    }

    @Override
    public int hashCode() {
        return Objects.hash(volid, format, content, size, approximate, used, vmid, ctime, parent, backup);
    }

    @Override
    public String toString() {
        return "VolumeInfo[volid=" + volid + ", format=" + format + ", content=" + content + ", size=" + size
                + ", approximate=" + approximate + ", used=" + used + ", vmid=" + vmid + ", ctime=" + ctime
                + ", parent=" + parent + ", backup=" + backup + "]";
    }

    /** Builds a {@link VolumeInfo}. */
    public static final class Builder {
        private final String volid;
        private final String format;
        private ContentType content;
        private long size;
        private boolean approximate;
        private Long used;
        private Integer vmid;
        private Long ctime;
        private String parent;
        private BackupDetails backup;

        private Builder(String volid, String format, ContentType content) {
            this.volid = requireNonNull(volid, "volid");
            this.format = requireNonNull(format, "format");
            this.content = requireNonNull(content, "content");
        }

        Builder content(ContentType type) {
            this.content = requireNonNull(type, "content");
            return this;
        }

        public Builder size(long bytes) {
            this.size = bytes;
            return this;
        }

        public Builder approximate(boolean estimate) {
            this.approximate = estimate;
            return this;
        }

        public Builder used(Long bytes) {
            this.used = bytes;
            return this;
        }

        public Builder vmid(Integer owner) {
            this.vmid = owner;
            return this;
        }

        public Builder ctime(Long seconds) {
            this.ctime = seconds;
            return this;
        }

        public Builder parent(String backingFile) {
            this.parent = backingFile;
            return this;
        }

        public Builder backup(BackupDetails details) {
            this.backup = details;
            return this;
        }

        public VolumeInfo build() {
            return new VolumeInfo(this);
        }
    }
}
