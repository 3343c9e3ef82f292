package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.Objects;

/**
 * A request to allocate a new volume.
 *
 * <p>Made with {@link #of}, so that it can gain fields without breaking plugins built against an
 * older SPI.
 */
public final class AllocRequest {
    private final int vmid;
    private final String name;
    private final VolumeFormat format;
    private final long sizeKib;

    private AllocRequest(int vmid, String name, VolumeFormat format, long sizeKib) {
        this.format = requireNonNull(format, "format");
        if (vmid <= 0) {
            throw new IllegalArgumentException("vmid must be positive: " + vmid);
        }
        if (sizeKib < 0) {
            throw new IllegalArgumentException("size must not be negative: " + sizeKib);
        }
        this.vmid = vmid;
        this.name = name;
        this.sizeKib = sizeKib;
    }

    /**
     * @param vmid    the owning guest
     * @param name    the wanted volume name, or null to let the plugin pick the next free one
     * @param format  the new volume's format
     * @param sizeKib the size in KiB (pve's allocation unit)
     */
    public static AllocRequest of(int vmid, String name, VolumeFormat format, long sizeKib) {
        return new AllocRequest(vmid, name, format, sizeKib);
    }

    /** The owning guest. */
    public int vmid() {
        return vmid;
    }

    /** The wanted volume name, or null to let the plugin pick the next free one. */
    public String name() {
        return name;
    }

    /** The new volume's format. */
    public VolumeFormat format() {
        return format;
    }

    /** The size in KiB (pve's allocation unit). */
    public long sizeKib() {
        return sizeKib;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AllocRequest that
                && vmid == that.vmid
                && sizeKib == that.sizeKib
                && Objects.equals(name, that.name)
                && format == that.format;
    }

    @Override
    public int hashCode() {
        return Objects.hash(vmid, name, format, sizeKib);
    }

    @Override
    public String toString() {
        return "AllocRequest[vmid=" + vmid + ", name=" + name + ", format=" + format + ", sizeKib=" + sizeKib + "]";
    }
}
