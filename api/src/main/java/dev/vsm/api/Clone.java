package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.VolumeId;

/** A linked clone ({@code vsm clone}): of a base volume, or of a volume's snapshot. */
public final class Clone {
    private final VolumeId source;
    private final int vmid;
    private final String snapshot;

    private Clone(VolumeId source, int vmid, String snapshot) {
        this.source = requireNonNull(source, "source");
        this.vmid = vmid;
        this.snapshot = snapshot;
    }

    /** A linked clone of base volume {@code source} for guest {@code vmid}. */
    public static Clone of(VolumeId source, int vmid) {
        return new Clone(source, vmid, null);
    }

    /** Clone this snapshot of the source instead (null: the base volume itself). */
    public Clone snapshot(String name) {
        return new Clone(source, vmid, name);
    }

    public VolumeId source() {
        return source;
    }

    public int vmid() {
        return vmid;
    }

    public String snapshot() {
        return snapshot;
    }
}
