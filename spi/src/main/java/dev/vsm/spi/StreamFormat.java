package dev.vsm.spi;

import java.util.Arrays;

/**
 * pve's volume stream formats ({@code pvesm export}/{@code import}, pve-storage's Plugin.pm): an 8-byte
 * little-endian size in bytes, then the data.
 */
public enum StreamFormat {
    /** The guest-visible data of the image, {@code size} bytes of it (the size is the virtual size). */
    RAW_SIZE("raw+size", VolumeFormat.RAW),
    /** The qcow2 file as it is on disk, to its end (the size is the virtual size); only with snapshots, as in pve. */
    QCOW2_SIZE("qcow2+size", VolumeFormat.QCOW2),
    /** The vmdk file as it is, to its end (the size is the virtual size); only with snapshots, as in pve. */
    VMDK_SIZE("vmdk+size", VolumeFormat.VMDK),
    /**
     * A subvol's directory as a GNU tar stream of its contents ({@code tar -C <dir> -cf - .} with
     * pve's options: numeric owners, ACLs, xattrs, sparse files); the size is 0, as pve writes it
     * for a directory.
     */
    TAR_SIZE("tar+size", VolumeFormat.SUBVOL);

    private final String id;
    private final VolumeFormat dataFormat;

    StreamFormat(String id, VolumeFormat dataFormat) {
        this.id = id;
        this.dataFormat = dataFormat;
    }

    /** The name on the command line: {@code raw+size}, {@code qcow2+size}, {@code vmdk+size}, {@code tar+size}. */
    public String id() {
        return id;
    }

    /** The format of the volume the data is: raw, qcow2, vmdk, subvol. */
    public VolumeFormat dataFormat() {
        return dataFormat;
    }

    /** Parses a stream format name; bad input naming the known ones otherwise. */
    public static StreamFormat parse(String id) {
        return Arrays.stream(values())
                .filter(f -> f.id.equals(id))
                .findFirst()
                .orElseThrow(() -> StorageException.badInput(
                        "unknown stream format '%s' (use raw+size, qcow2+size, vmdk+size or tar+size)",
                        VolumeId.printable(String.valueOf(id))));
    }

    @Override
    public String toString() {
        return id;
    }
}
