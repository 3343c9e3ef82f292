package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.Objects;

/**
 * What a storage listing tells about a backup archive beyond size and owner (pve's
 * {@code subtype}, {@code notes} and {@code protected} list items).
 *
 * <p>Made with {@link #of}, so that it can gain fields without breaking plugins built against an
 * older SPI.
 */
public final class BackupDetails {
    private final String subtype;
    private final String notes;
    private final boolean isProtected;

    private BackupDetails(String subtype, String notes, boolean isProtected) {
        this.subtype = requireNonNull(subtype, "subtype");
        this.notes = notes;
        this.isProtected = isProtected;
    }

    /**
     * @param subtype     the guest type the archive holds: {@code qemu}, {@code lxc}, {@code openvz} or {@code unknown}
     * @param notes       the first line of the archive's notes, or null
     * @param isProtected whether the archive is protected from removal and pruning
     */
    public static BackupDetails of(String subtype, String notes, boolean isProtected) {
        return new BackupDetails(subtype, notes, isProtected);
    }

    /** The guest type the archive holds: {@code qemu}, {@code lxc}, {@code openvz} or {@code unknown}. */
    public String subtype() {
        return subtype;
    }

    /** The first line of the archive's notes, or null. */
    public String notes() {
        return notes;
    }

    /** Whether the archive is protected from removal and pruning. */
    public boolean isProtected() {
        return isProtected;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BackupDetails that
                && isProtected == that.isProtected
                && subtype.equals(that.subtype)
                && Objects.equals(notes, that.notes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(subtype, notes, isProtected);
    }

    @Override
    public String toString() {
        return "BackupDetails[subtype=" + subtype + ", notes=" + notes + ", isProtected=" + isProtected + "]";
    }
}
