package dev.vsm.api;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import java.nio.file.Path;

/**
 * A disk image to import as a new volume ({@code vsm import}): a file, a block device (only with
 * {@link #blockDevice(boolean)}) or another volume. The source is inspected as an untrusted image
 * first; one that names data outside itself (a backing file, a data file, vmdk extents) is refused.
 */
public final class ImportImage {
    private final String storage;
    private final int vmid;
    private final String source;
    private final VolumeFormat format;
    private final String name;
    private final String sourceFormat;
    private final boolean blockDevice;

    private ImportImage(
            String storage,
            int vmid,
            String source,
            VolumeFormat format,
            String name,
            String sourceFormat,
            boolean blockDevice) {
        this.storage = requireNonNull(storage, "storage");
        this.vmid = vmid;
        this.source = requireNonNull(source, "source");
        this.format = format;
        this.name = name;
        this.sourceFormat = sourceFormat;
        this.blockDevice = blockDevice;
    }

    /** The image in {@code file} as a new volume of guest {@code vmid} on {@code storage}. */
    public static ImportImage of(String storage, int vmid, Path file) {
        return new ImportImage(storage, vmid, file.toString(), null, null, null, false);
    }

    /** A copy of {@code volume} as a new volume of guest {@code vmid} on {@code storage}. */
    public static ImportImage of(String storage, int vmid, VolumeId volume) {
        return new ImportImage(storage, vmid, volume.toString(), null, null, null, false);
    }

    /** The new volume's format (raw or qcow2); null: the storage's. */
    public ImportImage format(VolumeFormat format) {
        return new ImportImage(storage, vmid, source, format, name, sourceFormat, blockDevice);
    }

    /** The new volume's name; null: the next free {@code vm-<vmid>-disk-<n>}. */
    public ImportImage name(String name) {
        return new ImportImage(storage, vmid, source, format, name, sourceFormat, blockDevice);
    }

    /** Read the source as this format instead of telling it from its first bytes ({@code raw} takes any data). */
    public ImportImage sourceFormat(String format) {
        return new ImportImage(storage, vmid, source, this.format, name, format, blockDevice);
    }

    /** The source may be a block device (nothing may write to it while it is read). */
    public ImportImage blockDevice(boolean allowed) {
        return new ImportImage(storage, vmid, source, format, name, sourceFormat, allowed);
    }

    public String storage() {
        return storage;
    }

    public int vmid() {
        return vmid;
    }

    /** The source as the command line names it: a path or a volume id. */
    public String source() {
        return source;
    }

    public VolumeFormat format() {
        return format;
    }

    public String name() {
        return name;
    }

    public String sourceFormat() {
        return sourceFormat;
    }

    public boolean blockDevice() {
        return blockDevice;
    }
}
