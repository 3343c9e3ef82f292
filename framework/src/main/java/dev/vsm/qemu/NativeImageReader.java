package dev.vsm.qemu;

import dev.vsm.qemu.Qcow2Header.InvalidHeaderException;
import dev.vsm.qemu.Qcow2Header.NotQcow2Exception;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * Reads what {@code qemu-img info} reports about a qcow2 or raw image file from the file itself:
 * the qcow2 header ({@link Qcow2Header}), or for raw the file's size. Everything else (other
 * formats, block devices, headers it does not trust) it leaves to qemu-img. The allocated size and
 * the inode change time are not read here: {@link BatchStat} reads them for many files at once.
 */
final class NativeImageReader {
    private static final int SECTOR = 512;

    /** What reading one image came to. */
    sealed interface Outcome permits Read, Fallback, Failed {}

    /** The image, read; its allocated size and change time still to be added. */
    record Read(
            long virtualSize,
            String format,
            String backingFile,
            String backingFormat,
            Integer clusterSize,
            boolean extendedL2)
            implements Outcome {}

    /** qemu-img must answer, for {@code reason}. */
    record Fallback(String reason) implements Outcome {}

    /** The image cannot be read: an error for this volume. */
    record Failed(StorageException error) implements Outcome {}

    /** Reads {@code path} as {@code format} (null: qemu-img probes the format). */
    Outcome read(Path path, String format) {
        if (!VolumeFormat.QCOW2.is(format) && !VolumeFormat.RAW.is(format)) {
            return new Fallback("format " + format + " is read by qemu-img");
        }
        BasicFileAttributes stat;
        try {
            stat = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (IOException | UnsupportedOperationException e) {
            return new Fallback("cannot stat it here: " + e.getMessage());
        }
        if (!stat.isRegularFile()) {
            return new Fallback("not a regular file");
        }
        if (VolumeFormat.RAW.is(format)) {
            // qemu counts whole sectors: a raw file's size is rounded up to 512 bytes
            long size = stat.size();
            return new Read((size + SECTOR - 1) / SECTOR * SECTOR, VolumeFormat.RAW.id(), null, null, null, false);
        }
        return readQcow2(path);
    }

    private static Outcome readQcow2(Path path) {
        Qcow2Header h;
        try {
            h = Qcow2Header.read(path);
        } catch (NotQcow2Exception e) {
            // qemu-img's wording, which callers recognise (pve: "querying as raw")
            return new Failed(StorageException.failed("cannot read '%s': %s", path, e.getMessage()));
        } catch (InvalidHeaderException e) {
            return new Failed(StorageException.failed("invalid qcow2 image '%s': %s", path, e.getMessage()));
        } catch (IOException e) {
            return new Failed(StorageException.failed(e, "cannot read '%s': %s", path, e.getMessage()));
        }
        Optional<String> untrusted = h.untrustedReason();
        if (untrusted.isPresent()) {
            return new Fallback(untrusted.get());
        }
        return new Read(
                h.virtualSize(),
                VolumeFormat.QCOW2.id(),
                h.backingFile(),
                h.backingFormat(),
                h.clusterSize(),
                h.extendedL2());
    }
}
