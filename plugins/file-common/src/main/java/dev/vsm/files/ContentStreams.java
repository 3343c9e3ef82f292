package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.ImportMetadata;
import dev.vsm.spi.SourceFile;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeName;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What a file storage streams (pve's path-based {@code volume_export_formats},
 * {@code volume_import_formats} and {@code volume_import} for images, subvols and for iso, vztmpl,
 * snippets and import files), how a content file is written from a stream, and which file an
 * import or copy reads a volume from.
 */
public final class ContentStreams {
    /** The content other than images that pve's path-based plugins stream as {@code raw+size}: the file as it is. */
    private static final Set<ContentType> STREAMED_CONTENT =
            Set.of(ContentType.ISO, ContentType.VZTMPL, ContentType.SNIPPETS, ContentType.IMPORT);

    private final String storageId;
    private final StorageContext context;
    private final StorageTree tree;

    /** @param layout where the storage's files are: each is reached by descriptor from its base ({@link StorageTree}) */
    public ContentStreams(String storageId, DirLayout layout, StorageContext context) {
        this.storageId = requireNonNull(storageId, "storageId");
        this.context = requireNonNull(context, "context");
        this.tree = new StorageTree(layout.basePath());
    }

    /**
     * pve's path-based {@code volume_export_formats} for images: {@code raw+size} without
     * snapshots, {@code qcow2+size} and {@code vmdk+size} (the file as it is, internal snapshots and
     * all) only with them; a subvol's directory {@code tar+size}, without snapshots only.
     */
    public Set<StreamFormat> exportFormats(VolumeName volume, boolean withSnapshots) {
        if (STREAMED_CONTENT.contains(volume.type())) {
            return contentImportFormats(volume, withSnapshots);
        }
        if (volume.type() != ContentType.IMAGES) {
            return Set.of();
        }
        if (withSnapshots) {
            return volume.volumeFormat().map(ContentStreams::withSnapshots).orElse(Set.of());
        }
        return Set.of(volume.hasFormat(VolumeFormat.SUBVOL) ? StreamFormat.TAR_SIZE : StreamFormat.RAW_SIZE);
    }

    /** pve's {@code <format>+size} of a qcow2 or vmdk image: the file as it is, its internal snapshots in it. */
    private static Set<StreamFormat> withSnapshots(VolumeFormat format) {
        return switch (format) {
            case QCOW2 -> Set.of(StreamFormat.QCOW2_SIZE);
            case VMDK -> Set.of(StreamFormat.VMDK_SIZE);
            case RAW, SUBVOL -> Set.of();
        };
    }

    /**
     * pve's {@code volume_import}: the stream's data format must be the volume's; qcow2 and vmdk
     * only with snapshots, raw and a subvol's tar only without.
     */
    public Set<StreamFormat> importFormats(VolumeFormat volumeFormat, boolean withSnapshots) {
        if (withSnapshots) {
            return withSnapshots(volumeFormat);
        }
        return switch (volumeFormat) {
            case RAW -> Set.of(StreamFormat.RAW_SIZE);
            case SUBVOL -> Set.of(StreamFormat.TAR_SIZE);
            case QCOW2, VMDK -> Set.of();
        };
    }

    /**
     * pve's {@code volume_import_formats} for iso, vztmpl, snippets and import files: {@code raw+size}
     * without snapshots. A disk inside an OVA is no file of its own and is not streamed.
     */
    public Set<StreamFormat> contentImportFormats(VolumeName volume, boolean withSnapshots) {
        if (!STREAMED_CONTENT.contains(volume.type())
                || withSnapshots
                || volume.format().startsWith("ova+")) {
            return Set.of();
        }
        return Set.of(StreamFormat.RAW_SIZE);
    }

    /**
     * Writes the file {@code volume} names, at {@code path}, with {@code writer}: under a
     * temporary name beside it ({@link PartialImages}: a crash leaves it unlisted,
     * {@code vsm cleanup} removes it), named under the storage lock, never over a file that exists
     * (pve: {@code dd conv=excl}, {@code file '...' already exists}). The caller checked
     * {@link #contentImportFormats}.
     */
    public void writeContent(Path path, Consumer<Path> writer) {
        Path dir = path.getParent();
        HostFiles files = context.files();
        context.locks().withStorageLock(storageId, () -> {
            checkAbsent(path);
            files.createDirectories(dir);
            return null;
        });
        Path temp = new PartialImages(context.nodeName(), files).temporaryFor(path);
        try {
            // the writer gets the file created, by descriptor, never the name again; and that file gets the name
            try (StorageTree.Made made = tree.make(temp, writer)) {
                context.locks().withStorageLock(storageId, () -> {
                    checkAbsent(path);
                    made.publish(files, path);
                    return null;
                });
            }
        } catch (RuntimeException e) {
            if (Files.exists(temp, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    files.delete(temp);
                } catch (StorageException cleanup) {
                    context.console().warn(cleanup.getMessage());
                }
            }
            throw e;
        }
        files.sync(dir);
    }

    private static void checkAbsent(Path path) {
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("file '%s' already exists", path);
        }
    }

    /** The guest the OVF or OVA {@code volume}, at {@code path}, describes ({@link OvfImports}). */
    public ImportMetadata importMetadata(VolumeName volume, Path path) {
        return new OvfImports(storageId, tree).read(volume, path);
    }

    /**
     * The file to read {@code volume}, at {@code path}, from: a disk inside an OVA is extracted to
     * a temporary file ({@link OvaDisks}); other volumes are read where they are.
     */
    public SourceFile sourceFile(VolumeName volume, Path path) {
        if (volume.type() == ContentType.IMPORT && volume.format().startsWith("ova+")) {
            return new OvaDisks(storageId, context, tree).extract(volume, path);
        }
        return SourceFile.of(path, volume.format());
    }
}
