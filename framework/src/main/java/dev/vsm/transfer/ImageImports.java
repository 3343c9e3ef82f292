package dev.vsm.transfer;

import static java.util.Objects.requireNonNull;

import dev.vsm.engine.Capabilities;
import dev.vsm.engine.StorageManager;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.ImageImport;
import dev.vsm.spi.ImportMetadata;
import dev.vsm.spi.Operation;
import dev.vsm.spi.SourceFile;
import dev.vsm.spi.SourceImage;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeName;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code vsm import}: a new volume from an image file (or a volume of a configured storage),
 * converted by the target storage ({@link Storage#importImage}).
 */
public final class ImageImports {
    /** A source that starts with a storage id and a colon is taken as a volume id when that storage exists. */
    private static final Pattern VOLID_LIKE = Pattern.compile("^[a-zA-Z][a-zA-Z0-9\\-_.]*[a-zA-Z0-9]:.+");

    private final StorageManager manager;
    private final SourceImages sources;

    public ImageImports(StorageManager manager, SourceImages sources) {
        this.manager = requireNonNull(manager, "manager");
        this.sources = requireNonNull(sources, "sources");
    }

    /**
     * The image a source argument names: a volume id of a configured storage, or a path that is a
     * volume of one (both read as that volume: {@link #volumeSource}), else a path, checked and
     * inspected as an untrusted image ({@link SourceImages}). A volume's path is read in the
     * volume's format whatever its first bytes say, so a guest that writes an image header over
     * its raw disk cannot make vsm read that disk as an image; {@code --source-format raw} reads
     * any source as raw. Close the result when the import is done.
     */
    public ImportSource source(String source, String sourceFormat, boolean yes) {
        if (VOLID_LIKE.matcher(source).matches()) {
            VolumeId volid = VolumeId.parse(source);
            if (manager.storages().containsKey(volid.storage())) {
                return volumeSource(volid, sourceFormat);
            }
        }
        Path path = Path.of(source);
        if (!VolumeFormat.RAW.is(sourceFormat)) {
            Optional<VolumeId> volume = volumeAt(path);
            if (volume.isPresent()) {
                return volumeSource(volume.get(), sourceFormat);
            }
        }
        ImportSource file = sources.open(path, sourceFormat, yes, path.toString(), () -> {});
        return new ImportSource(
                file.image(), file.image().path().toString(), file.release(), file.state()); // shown absolute
    }

    /** The volume of a configured storage at {@code path}, if it is one. */
    private Optional<VolumeId> volumeAt(Path path) {
        if (!Files.exists(path)) {
            return Optional.empty();
        }
        try {
            return Optional.of(manager.volumeIdForPath(path));
        } catch (StorageException e) {
            return Optional.empty(); // no volume (or a storage that cannot say): the path is inspected as untrusted
        }
    }

    /** A volume as the source of an import, read as its own format or, with {@code --source-format raw}, as raw. */
    private ImportSource volumeSource(VolumeId volid, String sourceFormat) {
        if (sourceFormat == null) {
            return volumeSource(volid);
        }
        StorageManager.Volume volume = manager.volume(volid);
        String own = volume.name().format();
        if (!VolumeFormat.RAW.is(sourceFormat) && !sourceFormat.equals(own)) {
            throw StorageException.badInput(
                    "source '%s' is a volume of format %s, read as %s: drop --source-format %s (or pass "
                            + "--source-format raw to read its bytes as a raw disk)",
                    volid, own, own, VolumeId.printable(sourceFormat));
        }
        if (sourceFormat.equals(own)) {
            return volumeSource(volid);
        }
        Storage storage = volume.storage();
        storage.activateVolume(volume.name());
        SourceFile file = storage.sourceFile(volume.name());
        try {
            return sources.open(file.path(), VolumeFormat.RAW.id(), true, volid.toString(), file::close);
        } catch (RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /**
     * A volume as the source of an import or a copy: activated, at its path, in its own format.
     * A guest image (content {@code images} or {@code rootdir}) is vsm's own and read as it is (a
     * linked clone with its base); any other volume ({@code import} content) and a volume that is
     * no file of its own ({@link Storage#sourceFile}, a disk in an OVA, as the temporary file the
     * storage made) is inspected as an untrusted image.
     */
    ImportSource volumeSource(VolumeId volid) {
        StorageManager.Volume volume = manager.volume(volid);
        Storage storage = volume.storage();
        VolumeName name = volume.name();
        storage.activateVolume(name);
        SourceFile file = storage.sourceFile(name);
        try {
            boolean guestImage = name.type() == ContentType.IMAGES || name.type() == ContentType.ROOTDIR;
            if (guestImage && file.path().equals(storage.path(name))) {
                long size = storage.volumeSizeInfo(name).virtualSize();
                return new ImportSource(
                        new SourceImage(file.path(), file.format(), size), volid.toString(), file::close, null);
            }
            return sources.open(file.path(), file.format(), true, volid.toString(), file::close);
        } catch (RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /**
     * What the guest an OVF or OVA of {@code import} content describes should be created with
     * ({@code vsm import-metadata}, pve's {@code import-metadata}). A disk whose size the storage
     * leaves unknown (an OVF's disk file, whose own size pve reads) is opened as the source of an
     * import would be: inspected as an untrusted image, then measured by {@code qemu-img info -f}.
     * A storage without the operation is refused before the volume's name is read, as pve asks
     * the plugin first.
     */
    public ImportMetadata importMetadata(VolumeId volid) {
        Capabilities.require(manager.storage(volid.storage()), Operation.IMPORT_METADATA);
        StorageManager.Volume volume = manager.volume(volid);
        ImportMetadata found = volume.storage().importMetadata(volume.name());
        ImportMetadata.Builder sized = null;
        for (Map.Entry<String, ImportMetadata.Disk> e : found.disks().entrySet()) {
            ImportMetadata.Disk disk = e.getValue();
            if (disk.size().isEmpty()) {
                try (ImportSource source = volumeSource(disk.volid())) {
                    sized = sized == null ? found.toBuilder() : sized;
                    sized.disk(e.getKey(), disk.withSize(source.image().virtualSize()));
                }
            }
        }
        return sized == null ? found : sized.build();
    }

    /**
     * Imports {@code source} as a new volume of {@code vmid} on {@code storageId}.
     *
     * @param format the new volume's format, or null for the storage's default
     * @param name   the new volume's name, or null for the next free one
     */
    public VolumeId importImage(String storageId, int vmid, ImportSource source, String format, String name) {
        VolumeFormat fmt = targetFormat(storageId, format, null);
        manager.checkAllocatable(storageId, vmid, name, fmt);
        Storage storage = manager.activate(storageId);
        Capabilities.require(storage, Operation.IMPORT_IMAGE);
        VolumeId volid = new VolumeId(storageId, storage.importImage(new ImageImport(vmid, name, fmt, source.image())));
        checkUnchanged(source, volid);
        return volid;
    }

    /**
     * Undoes an import whose source changed while it was read ({@link ImportSource#checkUnchanged}):
     * the new volume may hold another image than the one inspected.
     */
    void checkUnchanged(ImportSource source, VolumeId imported) {
        try {
            source.checkUnchanged();
        } catch (StorageException changed) {
            if (!manager.context().dryRun()) {
                try {
                    manager.free(imported);
                } catch (RuntimeException e) {
                    changed.addSuppressed(e);
                }
            }
            throw changed;
        }
    }

    /**
     * The format of a new volume on {@code storageId}: the one asked for, else {@code preferred}
     * when the storage takes it, else the storage's configured or default format. Checks that the
     * storage is enabled and takes the format.
     */
    VolumeFormat targetFormat(String storageId, String asked, String preferred) {
        manager.checkEnabled(storageId);
        boolean takesPreferred = VolumeFormat.fromId(preferred)
                .filter(manager.formats(storageId)::contains)
                .isPresent();
        return manager.supportedFormat(storageId, asked != null ? asked : takesPreferred ? preferred : null);
    }
}
