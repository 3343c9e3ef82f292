package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.Objects;
import java.util.Optional;

/**
 * A parsed volume name: pve's {@code (vtype, name, vmid, basename, basevmid, isBase, format)}.
 *
 * <p>Made with {@link #builder(String, ContentType, String, VolumeFormat)} (or, for a format that is
 * no {@link VolumeFormat}, {@link #builder(String, ContentType, String, String)}), so that it can
 * gain fields without breaking plugins built against an older SPI:
 * {@code VolumeName.builder(volname, ContentType.IMAGES, name, VolumeFormat.RAW).vmid(100).build()}.
 */
public final class VolumeName {
    private final String volname;
    private final ContentType type;
    private final String name;
    private final Integer vmid;
    private final String baseName;
    private final Integer baseVmid;
    private final boolean isBase;
    private final String format;

    private VolumeName(Builder b) {
        this.volname = b.volname;
        this.type = b.type;
        this.name = b.name;
        this.vmid = b.vmid;
        this.baseName = b.baseName;
        this.baseVmid = b.baseVmid;
        this.isBase = b.isBase;
        this.format = b.format;
    }

    /**
     * A builder for {@code volname} (the part of the volume id after the storage id), standing for
     * {@code type}, whose own file or LV name is {@code name}, in {@code format} (raw, qcow2, vmdk,
     * subvol, ova+vmdk, ...); it has no owner and no base until the builder says so.
     */
    public static Builder builder(String volname, ContentType type, String name, String format) {
        return new Builder(volname, type, name, format);
    }

    /** A builder for a volume in one of vsm's image formats; otherwise as {@link #builder(String, ContentType, String, String)}. */
    public static Builder builder(String volname, ContentType type, String name, VolumeFormat format) {
        return builder(volname, type, name, format.id());
    }

    /** The volume name as given (the part of the volume id after the storage id). */
    public String volname() {
        return volname;
    }

    /** The content type the name stands for. */
    public ContentType type() {
        return type;
    }

    /** The file or LV name of the volume itself. */
    public String name() {
        return name;
    }

    /** The owning guest, or null (iso, templates, ...). */
    public Integer vmid() {
        return vmid;
    }

    /** For a linked clone, the name of its base volume; else null. */
    public String baseName() {
        return baseName;
    }

    /** For a linked clone, the owner of its base volume; else null. */
    public Integer baseVmid() {
        return baseVmid;
    }

    /** Whether the volume itself is a base (template) volume. */
    public boolean isBase() {
        return isBase;
    }

    /** raw, qcow2, vmdk, subvol, ova+vmdk, ... */
    public String format() {
        return format;
    }

    /** The format as a {@link VolumeFormat}; empty for the others (ova+vmdk, ...). */
    public Optional<VolumeFormat> volumeFormat() {
        return VolumeFormat.fromId(format);
    }

    /** Whether the volume is in {@code f}. */
    public boolean hasFormat(VolumeFormat f) {
        return f.is(format);
    }

    public boolean isLinkedClone() {
        return baseName != null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VolumeName that
                && isBase == that.isBase
                && volname.equals(that.volname)
                && type == that.type
                && name.equals(that.name)
                && Objects.equals(vmid, that.vmid)
                && Objects.equals(baseName, that.baseName)
                && Objects.equals(baseVmid, that.baseVmid)
                && format.equals(that.format);
    }

    @Override
    public int hashCode() {
        return Objects.hash(volname, type, name, vmid, baseName, baseVmid, isBase, format);
    }

    @Override
    public String toString() {
        return "VolumeName[volname=" + volname + ", type=" + type + ", name=" + name + ", vmid=" + vmid + ", baseName="
                + baseName + ", baseVmid=" + baseVmid + ", isBase=" + isBase + ", format=" + format + "]";
    }

    /** Builds a {@link VolumeName}. */
    public static final class Builder {
        private final String volname;
        private final ContentType type;
        private final String name;
        private final String format;
        private Integer vmid;
        private String baseName;
        private Integer baseVmid;
        private boolean isBase;

        private Builder(String volname, ContentType type, String name, String format) {
            this.volname = requireNonNull(volname, "volname");
            this.type = requireNonNull(type, "type");
            this.name = requireNonNull(name, "name");
            this.format = requireNonNull(format, "format");
        }

        public Builder vmid(Integer owner) {
            this.vmid = owner;
            return this;
        }

        /** A linked clone of base volume {@code name}, owned by {@code owner}; null for none. */
        public Builder base(String name, Integer owner) {
            this.baseName = name;
            this.baseVmid = owner;
            return this;
        }

        public Builder isBase(boolean base) {
            this.isBase = base;
            return this;
        }

        public VolumeName build() {
            return new VolumeName(this);
        }
    }
}
