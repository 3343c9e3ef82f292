package dev.vsm.transfer;

import static java.util.Objects.requireNonNull;

import dev.vsm.engine.StorageManager;
import dev.vsm.spi.ImageImport;
import dev.vsm.spi.Operation;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code vsm copy}: a full copy of a volume as a new volume on another (or the same) storage,
 * the storage half of moving a VM disk. When the target storage imports images, the volume is
 * converted ({@code qemu-img convert}, any format to any); otherwise, and for a subvol, the data
 * goes as a stream in a format the source exports and the target imports ({@code raw+size} first;
 * {@code tar+size} for a subvol).
 */
public final class VolumeCopier {
    private final StorageManager manager;
    private final ImageImports imports;
    private final VolumeExporter exporter;
    private final StreamImporter importer;

    public VolumeCopier(
            StorageManager manager, ImageImports imports, VolumeExporter exporter, StreamImporter importer) {
        this.manager = requireNonNull(manager, "manager");
        this.imports = requireNonNull(imports, "imports");
        this.exporter = requireNonNull(exporter, "exporter");
        this.importer = requireNonNull(importer, "importer");
    }

    /** How a copy moves the data. */
    public enum Method {
        CONVERT,
        STREAM
    }

    /** A finished copy: the new volume and how it was made. */
    public record Copy(VolumeId volid, Method method, StreamFormat stream) {}

    /**
     * Copies {@code source} to {@code targetStorage}, converting when the target imports images
     * (or as {@code method} forces: {@code null} is the target's choice), a stream at most
     * {@code limit} fast (a conversion: as its qemu-img runner is limited,
     * {@link VolumeTransfers#limitConverts}).
     *
     * @param vmid   the new volume's owner, or null for the source's
     * @param format the new volume's format, or null: the source's when the target takes it, else the target's default
     * @param name   the new volume's name, as {@code vsm alloc} takes it, or null: the owner's next free
     */
    public Copy copy(
            VolumeId source,
            String targetStorage,
            Integer vmid,
            String format,
            Method method,
            BandwidthLimit limit,
            String name) {
        StorageManager.Volume volume = manager.volume(source);
        VolumeName from = volume.name();
        int owner = vmid != null
                ? vmid
                : Optional.ofNullable(from.vmid())
                        .orElseThrow(() ->
                                StorageException.badInput("volume '%s' has no owning guest: pass --vmid", source));
        VolumeFormat fmt = imports.targetFormat(targetStorage, format, from.format());
        if (name != null) {
            manager.checkAllocatable(targetStorage, owner, name, fmt);
        }
        Storage to = manager.activate(targetStorage);
        boolean fileImage = !from.hasFormat(VolumeFormat.SUBVOL); // a subvol's directory goes as a tar+size stream
        if (method == Method.CONVERT
                || (method == null && fileImage && to.operations().contains(Operation.IMPORT_IMAGE))) {
            try (ImportSource image = imports.volumeSource(source)) {
                VolumeId copied =
                        new VolumeId(targetStorage, to.importImage(new ImageImport(owner, name, fmt, image.image())));
                imports.checkUnchanged(image, copied);
                return new Copy(copied, Method.CONVERT, null);
            }
        }
        StreamFormat stream = commonFormat(source, from, volume.storage(), to, fmt, targetStorage);
        StreamImporter.Target target = new StreamImporter.Target(targetStorage, owner, name, fmt);
        importer.checkFormat(target, stream, false);
        return new Copy(pipe(source, stream, target, limit), Method.STREAM, stream);
    }

    private static StreamFormat commonFormat(
            VolumeId source, VolumeName name, Storage from, Storage to, VolumeFormat fmt, String targetStorage) {
        Set<StreamFormat> common = EnumSet.noneOf(StreamFormat.class);
        common.addAll(from.exportFormats(name, false));
        common.retainAll(to.importFormats(fmt, false));
        if (common.isEmpty()) {
            throw StorageException.badInput(
                    "cannot copy '%s' to storage '%s' (type %s): it imports no images, and no stream "
                            + "format of a %s volume fits both (source exports: %s; target imports: %s)",
                    source,
                    targetStorage,
                    to.config().type(),
                    fmt,
                    orNone(from.exportFormats(name, false)),
                    orNone(to.importFormats(fmt, false)));
        }
        return common.contains(StreamFormat.RAW_SIZE)
                ? StreamFormat.RAW_SIZE
                : common.iterator().next();
    }

    private static String orNone(Set<StreamFormat> formats) {
        return formats.isEmpty() ? "none" : VolumeExporter.names(formats);
    }

    /** Export and import joined by a pipe: the export runs on a second thread. */
    private VolumeId pipe(VolumeId source, StreamFormat stream, StreamImporter.Target target, BandwidthLimit limit) {
        AtomicReference<RuntimeException> exportFailure = new AtomicReference<>();
        PipedInputStream in = new PipedInputStream(VolumeWriter.BLOCK * 4);
        try (PipedOutputStream out = new PipedOutputStream(in)) {
            Thread export = new Thread(
                    () -> {
                        try (out) {
                            exporter.export(source, stream, false, out, limit);
                        } catch (RuntimeException | IOException e) {
                            exportFailure.set(
                                    e instanceof RuntimeException re
                                            ? re
                                            : StorageException.failed(
                                                    e, "export of '%s' failed: %s", source, e.getMessage()));
                        }
                    },
                    "vsm-copy-export");
            export.start();
            VolumeId copy;
            try {
                copy = importer.importFrom(target, stream, in);
            } catch (RuntimeException e) {
                RuntimeException first = exportFailure.get();
                throw first != null ? first : e;
            } finally {
                in.close(); // an import that stopped early must not leave the export blocked on a full pipe
                joinQuietly(export);
            }
            if (exportFailure.get() != null) {
                throw exportFailure.get();
            }
            return copy;
        } catch (IOException e) {
            throw StorageException.failed(e, "copy of '%s' failed: %s", source, e.getMessage());
        }
    }

    private static void joinQuietly(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
