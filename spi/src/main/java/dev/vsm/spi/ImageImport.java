package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.Objects;

/**
 * A request to make a new volume from an image ({@code vsm import}, {@code vsm copy}).
 */
public final class ImageImport {
    private final int vmid;
    private final String name;
    private final VolumeFormat format;
    private final SourceImage source;

    /**
     * @param vmid   the owning guest
     * @param name   the wanted volume name, or null for the next free one
     * @param format the new volume's format
     * @param source the image to copy into it
     */
    public ImageImport(int vmid, String name, VolumeFormat format, SourceImage source) {
        requireNonNull(format, "format");
        requireNonNull(source, "source");
        if (vmid <= 0) {
            throw new IllegalArgumentException("vmid must be positive: " + vmid);
        }
        this.vmid = vmid;
        this.name = name;
        this.format = format;
        this.source = source;
    }

    public int vmid() {
        return vmid;
    }

    public String name() {
        return name;
    }

    public VolumeFormat format() {
        return format;
    }

    public SourceImage source() {
        return source;
    }

    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof ImageImport that
                        && vmid == that.vmid
                        && Objects.equals(name, that.name)
                        && Objects.equals(format, that.format)
                        && Objects.equals(source, that.source);
    }

    @Override
    public int hashCode() {
        return Objects.hash(vmid, name, format, source);
    }

    @Override
    public String toString() {
        return "ImageImport[vmid=" + vmid + ", name=" + name + ", format=" + format + ", source=" + source + "]";
    }
}
