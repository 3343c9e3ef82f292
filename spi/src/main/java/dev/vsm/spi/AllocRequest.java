package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

/**
 * A request to allocate a new volume.
 *
 * @param vmid    the owning guest
 * @param name    the wanted volume name, or null to let the plugin pick the next free one
 * @param format  raw, qcow2, vmdk or subvol
 * @param sizeKib the size in KiB (pve's allocation unit)
 */
public record AllocRequest(int vmid, String name, String format, long sizeKib) {
    public AllocRequest {
        requireNonNull(format, "format");
        if (vmid <= 0) {
            throw new IllegalArgumentException("vmid must be positive: " + vmid);
        }
        if (sizeKib < 0) {
            throw new IllegalArgumentException("size must not be negative: " + sizeKib);
        }
    }
}
