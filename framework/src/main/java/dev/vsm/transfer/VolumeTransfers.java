package dev.vsm.transfer;

import static java.util.Objects.requireNonNull;

import dev.vsm.config.BandwidthLimits;
import dev.vsm.engine.StorageManager;
import dev.vsm.progress.ProgressOutput;
import dev.vsm.qemu.QemuImgRunner;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeName;
import java.util.List;

/**
 * The import/export/copy operations of one command run, made from the storage facade, the
 * qemu-img runner and the progress display.
 */
public final class VolumeTransfers {
    private final ImageImports imports;
    private final VolumeExporter exporter;
    private final StreamImporter importer;
    private final VolumeCopier copier;
    private final StorageManager manager;
    private final QemuImgRunner qemuImg;

    public VolumeTransfers(StorageManager manager, QemuImgRunner qemuImg, ProgressOutput progress) {
        this.manager = requireNonNull(manager, "manager");
        this.qemuImg = requireNonNull(qemuImg, "qemuImg");
        this.imports = new ImageImports(manager, new SourceImages(qemuImg));
        this.exporter = new VolumeExporter(manager, qemuImg, progress);
        this.importer = new StreamImporter(manager, qemuImg, progress);
        this.copier = new VolumeCopier(manager, imports, exporter, importer);
    }

    /**
     * The bandwidth limit of {@code operation} on {@code storages}: the smallest of their
     * {@code bwlimit}s for it ({@link BandwidthLimits}; vsm has no global limits), with the caller's
     * {@code override} taking part, or standing alone when the caller may change the storages.
     *
     * @param operation a {@code bwlimit} key ({@code migration}, {@code move}, {@code clone}), any other
     *                  name for {@code default}
     * @param override  the limit asked for in KiB/s ({@code 0}: none), or null
     * @return the limit, or null for none
     */
    public BandwidthLimit limit(String operation, List<String> storages, Long override, boolean mayChangeStorages) {
        if (override != null && override < 0) {
            throw StorageException.badInput("bwlimit: %d KiB/s is not a bandwidth (0 is no limit)", override);
        }
        Double kib = BandwidthLimits.limit(
                operation,
                storages,
                override == null ? null : override.doubleValue(),
                id -> manager.config(id).string("bwlimit").orElse(null),
                null,
                BandwidthLimits.Rights.all(mayChangeStorages));
        return kib == null || kib <= 0 ? null : new BandwidthLimit(Math.max(1, Math.round(kib)));
    }

    /** Every {@code qemu-img convert} of this run at most this fast ({@code -r}); null: no limit. */
    public void limitConverts(BandwidthLimit limit) {
        qemuImg.limitConverts(limit == null ? 0 : limit.kibPerSecond() * 1024);
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

    /**
     * {@code vsm copy} ({@link VolumeCopier#copy}) under the storages' bandwidth limit for it
     * ({@link #limit}; pve's key {@code clone} for a copy to another guest, else {@code move}).
     *
     * @param bwlimit the limit asked for in KiB/s, or null
     */
    public VolumeCopier.Copy copy(
            VolumeId source,
            String targetStorage,
            Integer vmid,
            String format,
            VolumeCopier.Method method,
            String name,
            Long bwlimit,
            boolean mayChangeStorages) {
        Integer sourceOwner = manager.parse(source).vmid();
        String operation = vmid != null && !vmid.equals(sourceOwner) ? "clone" : "move";
        BandwidthLimit limit = limit(operation, List.of(source.storage(), targetStorage), bwlimit, mayChangeStorages);
        limitConverts(limit);
        return copier.copy(source, targetStorage, vmid, format, method, limit, name);
    }

    /**
     * pve's copy ({@code POST .../content/{volume}}, {@code storage_migrate} with a
     * {@code target_volname}): {@code source} as the new volume {@code target}, whose storage,
     * owner, name and format are the copy's; a target that is not a guest's image is refused.
     */
    public VolumeCopier.Copy copyTo(VolumeId source, VolumeId target) {
        VolumeName name = manager.parse(target);
        if (name.type() != ContentType.IMAGES || name.vmid() == null || name.isBase()) {
            throw StorageException.badInput("target '%s' is not a guest's image", target);
        }
        return copy(source, target.storage(), name.vmid(), name.format(), null, name.name(), null, false);
    }
}
