package dev.vsm.transfer;

import static java.util.Objects.requireNonNull;

import dev.vsm.qemu.UntrustedImage;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.SourceImage;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.trust.PathState;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/**
 * Checks an image vsm did not make (given to {@code vsm import}, a volume of {@code import}
 * content, a disk from an OVA) before anything is allocated: inspected as an
 * {@link UntrustedImage} (its format told from its first bytes, refused when it names data outside
 * itself), then read with {@code qemu-img info -f <format>}. Refused (bad input, one line): a path
 * that does not exist or cannot be read, a directory, anything but a file or block device, a block
 * device without {@code --yes} (it may be in use), what the inspection refuses, what qemu-img
 * cannot open, and data that only "reads as raw" but is no disk image: an empty file, a file named
 * {@code .qcow2}/{@code .vmdk}/... that is not one, or one whose size is not a whole number of
 * 512-byte sectors (pass {@code --source-format raw} to take such data as a raw disk anyway).
 */
final class SourceImages {
    private static final long SECTOR = 512;
    /** Extensions that name an image format other than raw. */
    private static final Set<String> IMAGE_EXTENSIONS =
            Set.of(VolumeFormat.QCOW2.id(), "qcow", VolumeFormat.VMDK.id(), "vdi", "vhdx", "vhd", "vpc", "qed", "ova");

    private final QemuImg qemuImg;

    public SourceImages(QemuImg qemuImg) {
        this.qemuImg = requireNonNull(qemuImg, "qemuImg");
    }

    /**
     * @param path         the image (file or block device)
     * @param sourceFormat the format to read it as, or null to probe
     * @param yes          whether reading a block device was confirmed
     */
    public SourceImage probe(Path path, String sourceFormat, boolean yes) {
        return probe(path, sourceFormat, yes, path.toString());
    }

    /** As {@link #probe(Path, String, boolean)}, with messages naming the source {@code as} (a volume id). */
    public SourceImage probe(Path path, String sourceFormat, boolean yes, String as) {
        return open(path, sourceFormat, yes, as, () -> {}).image();
    }

    /**
     * As {@link #probe(Path, String, boolean, String)}, for an import that reads the image next:
     * the result remembers the path as it was inspected ({@link ImportSource#checkUnchanged}).
     *
     * @param release what closing the result does (removes a temporary copy)
     */
    ImportSource open(Path path, String sourceFormat, boolean yes, String as, Runnable release) {
        String shown = VolumeId.printable(as);
        if (!Files.exists(path)) {
            throw StorageException.badInput(
                    "source '%s' does not exist%s",
                    shown, Files.isSymbolicLink(path) ? " (a dangling symbolic link)" : "");
        }
        if (Files.isDirectory(path)) {
            throw StorageException.badInput("source '%s' is a directory, not a disk image", shown);
        }
        boolean device = VolumeWriter.isBlockDevice(path);
        if (!device && !Files.isRegularFile(path)) {
            throw StorageException.badInput("source '%s' is neither a file nor a block device", shown);
        }
        if (device && !yes) {
            throw StorageException.badInput(
                    "source '%s' is a block device: pass --yes to import it (nothing may write to it "
                            + "while it is read)",
                    shown);
        }
        checkReadable(path, shown);
        PathState state;
        try {
            state = PathState.of(path);
        } catch (IOException e) {
            throw StorageException.badInput("source '%s' cannot be read: %s", shown, e.getMessage());
        }
        String format = UntrustedImage.inspect(path, sourceFormat, as);
        ImageInfo info;
        try {
            info = qemuImg.info(path, format);
        } catch (StorageException e) {
            throw StorageException.badInput(
                    "source '%s' is not a disk image qemu-img can read%s: %s",
                    shown, sourceFormat == null ? "" : " as " + sourceFormat, e.getMessage());
        }
        if (sourceFormat == null && VolumeFormat.RAW.is(format) && !device) {
            checkLooksLikeRawDisk(path, shown, fileSize(path)); // qemu-img rounds a raw file's size up to whole sectors
        }
        ImportSource source = new ImportSource(
                new SourceImage(path.toAbsolutePath(), format, info.virtualSize()), as, release, state);
        source.checkUnchanged(); // the inspection and qemu-img info read the same file
        return source;
    }

    private static void checkReadable(Path path, String shown) {
        try (InputStream in = Files.newInputStream(path)) {
            in.read();
        } catch (IOException e) {
            throw StorageException.badInput(
                    "source '%s' cannot be read: %s",
                    shown, e instanceof java.nio.file.AccessDeniedException ? "permission denied" : e.getMessage());
        }
    }

    private static long fileSize(Path path) {
        try {
            return Files.size(path);
        } catch (IOException e) {
            throw StorageException.badInput(
                    "source '%s' cannot be read: %s", VolumeId.printable(path.toString()), e.getMessage());
        }
    }

    /** Data qemu-img only "reads as raw" must at least look like a disk. */
    private static void checkLooksLikeRawDisk(Path path, String shown, long size) {
        if (size == 0) {
            throw StorageException.badInput("source '%s' is empty", shown);
        }
        String name = path.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String ext = dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
        if (IMAGE_EXTENSIONS.contains(ext)) {
            throw StorageException.badInput(
                    "source '%s' is not a valid %s image (qemu-img reads it as raw data)", shown, ext);
        }
        if (size % SECTOR != 0) {
            throw StorageException.badInput(
                    "source '%s' does not look like a disk image: its %d bytes are not whole 512-byte "
                            + "sectors (pass --source-format raw to import it as raw data anyway)",
                    shown, size);
        }
    }
}
