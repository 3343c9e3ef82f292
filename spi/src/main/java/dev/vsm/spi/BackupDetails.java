package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

/**
 * What a storage listing tells about a backup archive beyond size and owner (pve's
 * {@code subtype}, {@code notes} and {@code protected} list items).
 *
 * @param subtype     the guest type the archive holds: {@code qemu}, {@code lxc}, {@code openvz} or {@code unknown}
 * @param notes       the first line of the archive's notes, or null
 * @param isProtected whether the archive is protected from removal and pruning
 */
public record BackupDetails(String subtype, String notes, boolean isProtected) {
    public BackupDetails {
        requireNonNull(subtype, "subtype");
    }
}
