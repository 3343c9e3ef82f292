package dev.vsm.spi;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The format of an image volume (pve's {@code format} of {@code alloc_image}): what
 * {@link AllocRequest#format()} and {@link ImageImport#format()} ask for. Its {@link #id()} is the
 * text in configuration, volume names, command lines and output ({@code raw}, {@code qcow2}, ...).
 */
public enum VolumeFormat {
    RAW("raw"),
    QCOW2("qcow2"),
    VMDK("vmdk"),
    /** A directory (a container's root file system on a directory storage), not an image file. */
    SUBVOL("subvol");

    private final String id;

    VolumeFormat(String id) {
        this.id = id;
    }

    /** The name in configuration, volume names and output: {@code raw}, {@code qcow2}, {@code vmdk}, {@code subvol}. */
    public String id() {
        return id;
    }

    /** Whether {@code id} names this format ({@code false} for null and for formats vsm does not store). */
    public boolean is(String id) {
        return this.id.equals(id);
    }

    /** The format named {@code id}, if it is one. */
    public static Optional<VolumeFormat> fromId(String id) {
        return Arrays.stream(values()).filter(f -> f.id.equals(id)).findFirst();
    }

    /** Parses a format name; bad input naming the valid ones otherwise. */
    public static VolumeFormat parse(String id) {
        return fromId(id)
                .orElseThrow(() -> StorageException.badInput(
                        "unknown volume format '%s' (use %s)", VolumeId.printable(String.valueOf(id)), validNames()));
    }

    /** {@code raw, qcow2, vmdk or subvol}, for messages. */
    static String validNames() {
        String all = Arrays.stream(values()).map(VolumeFormat::id).collect(Collectors.joining(", "));
        int last = all.lastIndexOf(", ");
        return all.substring(0, last) + " or " + all.substring(last + 2);
    }

    @Override
    public String toString() {
        return id;
    }
}
