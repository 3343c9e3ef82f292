package dev.vsm.transfer;

import static java.util.Objects.requireNonNull;

import dev.vsm.engine.StorageManager;
import dev.vsm.progress.ProgressOutput;
import dev.vsm.qemu.QemuImgRunner;

/**
 * The import/export/copy operations of one command run, made from the storage facade, the
 * qemu-img runner and the progress display.
 */
public final class VolumeTransfers {
    private final ImageImports imports;
    private final VolumeExporter exporter;
    private final StreamImporter importer;
    private final VolumeCopier copier;

    public VolumeTransfers(StorageManager manager, QemuImgRunner qemuImg, ProgressOutput progress) {
        requireNonNull(manager, "manager");
        this.imports = new ImageImports(manager, new SourceImages(qemuImg));
        this.exporter = new VolumeExporter(manager, qemuImg, progress);
        this.importer = new StreamImporter(manager, qemuImg, progress);
        this.copier = new VolumeCopier(manager, imports, exporter, importer);
    }

    /** {@code vsm import}. */
    public ImageImports imports() {
        return imports;
    }

    /** {@code vsm export}. */
    public VolumeExporter exporter() {
        return exporter;
    }

    /** {@code vsm import-stream}. */
    public StreamImporter streamImporter() {
        return importer;
    }

    /** {@code vsm copy}. */
    public VolumeCopier copier() {
        return copier;
    }
}
