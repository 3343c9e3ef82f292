package dev.vsm.transfer;

import static java.util.Objects.requireNonNull;

import dev.vsm.engine.StorageManager;
import dev.vsm.spi.CommonProperties;
import dev.vsm.spi.ImageImport;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.SourceFile;
import dev.vsm.spi.SourceImage;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeName;
import java.nio.file.Path;
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
     * The image a source argument names: a volume id of a configured storage (activated, its
     * format from its name; a disk inside an OVA extracted), else a path, checked and probed
     * ({@link SourceImages}). Close the result when the import is done.
     */
    public ImportSource source(String source, String sourceFormat, boolean yes) {
        if (VOLID_LIKE.matcher(source).matches()) {
            VolumeId volid = VolumeId.parse(source);
            if (manager.storages().containsKey(volid.storage())) {
                return volumeSource(volid);
            }
        }
        return ImportSource.of(sources.probe(Path.of(source), sourceFormat, yes));
    }

    /**
     * A volume as the source of an import or a copy: activated, at its path, in its own format;
     * a volume that is no file of its own ({@link Storage#sourceFile}, a disk in an OVA) as the
     * temporary file the storage made, probed as an untrusted image.
     */
    ImportSource volumeSource(VolumeId volid) {
        StorageManager.Volume volume = manager.volume(volid);
        Storage storage = volume.storage();
        VolumeName name = volume.name();
        storage.activateVolume(name);
        SourceFile file = storage.sourceFile(name);
        try {
            if (file.path().equals(storage.path(name))) {
                long size = storage.volumeSizeInfo(name).virtualSize();
                return new ImportSource(new SourceImage(file.path(), file.format(), size), volid.toString(), file::close);
            }
            return new ImportSource(sources.probe(file.path(), file.format(), false), volid.toString(), file::close);
        } catch (RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /**
     * Imports {@code source} as a new volume of {@code vmid} on {@code storageId}.
     *
     * @param format the new volume's format, or null for the storage's default
     * @param name   the new volume's name, or null for the next free one
     */
    public VolumeId importImage(String storageId, int vmid, SourceImage source, String format, String name) {
        String fmt = targetFormat(storageId, format, null);
        Storage storage = manager.activate(storageId);
        return new VolumeId(storageId, storage.importImage(new ImageImport(vmid, name, fmt, source)));
    }

    /**
     * The format of a new volume on {@code storageId}: the one asked for, else {@code preferred}
     * when the storage takes it, else the storage's configured or default format. Checks that the
     * storage is enabled and takes the format.
     */
    String targetFormat(String storageId, String asked, String preferred) {
        StorageConfig cfg = manager.config(storageId);
        manager.checkEnabled(storageId);
        PluginSchema schema = manager.schema(storageId);
        String fmt = asked != null ? asked
                : preferred != null && schema.formats().contains(preferred) ? preferred
                : cfg.string(CommonProperties.FORMAT).orElse(schema.defaultFormat());
        if (!schema.formats().contains(fmt)) {
            throw StorageException.badInput("storage '%s' (type %s) does not support format '%s' (supported: %s)",
                    storageId, cfg.type(), fmt, String.join(", ", schema.formats()));
        }
        return fmt;
    }
}
