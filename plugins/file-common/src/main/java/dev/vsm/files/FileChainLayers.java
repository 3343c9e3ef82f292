package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.HeldFile;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.ImageOptions;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The layers of a file storage's volume chain: image files in the volume's directory, the
 * snapshot {@code S} of {@code <name>.qcow2} in {@code snap-S-<name>.qcow2} (pve's
 * {@code get_snap_name}). A name read back from an image is taken only when it is a bare file name
 * whose snapshot part is a valid snapshot name: a backing name with a slash, or any other, is no
 * layer of the volume (a linked clone's base, or a file vsm did not make).
 */
final class FileChainLayers implements ChainLayers {
    /** pve's {@code pve-configid}, at most 40 characters: what a snapshot name may be. */
    private static final Pattern SNAPSHOT_NAME = Pattern.compile("[a-zA-Z][a-zA-Z0-9_-]{1,39}");

    /** What ends the name of an intent record: {@code .<volume's file>.vsm-chain}. */
    static final String INTENT_SUFFIX = ".vsm-chain";

    private static final int MAX_INTENT = 4096;

    private final String volname;
    /** The storage's directory, from which the volume's is reached by descriptor. */
    private final Path base;

    private final Path directory;
    private final String name;
    private final StorageContext context;
    private final ImageOptions options;
    private final Pattern snapshotFile;

    /**
     * @param volname the volume's name, for messages
     * @param base    the storage's directory
     * @param image   the volume's image file ({@code current})
     */
    FileChainLayers(String volname, Path base, Path image, StorageContext context, ImageOptions options) {
        this.volname = requireNonNull(volname, "volname");
        this.base = requireNonNull(base, "base");
        this.directory = requireNonNull(image.getParent(), "directory");
        this.name = image.getFileName().toString();
        this.context = requireNonNull(context, "context");
        this.options = requireNonNull(options, "options");
        this.snapshotFile = Pattern.compile("snap-(.*)-" + Pattern.quote(name));
    }

    @Override
    public String volname() {
        return volname;
    }

    @Override
    public String layerName(String snapshot) {
        return snapshot == null ? name : "snap-" + snapshot + "-" + name;
    }

    @Override
    public Optional<String> snapshotOf(String layerName) {
        Matcher m = snapshotFile.matcher(layerName);
        if (!m.matches() || !SNAPSHOT_NAME.matcher(m.group(1)).matches()) {
            return Optional.empty();
        }
        return Optional.of(m.group(1));
    }

    @Override
    public boolean exists(String layerName) {
        return Files.isRegularFile(path(layerName), LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public Path path(String layerName) {
        return directory.resolve(layerName);
    }

    @Override
    public ImageInfo info(String layerName) {
        return context.qemuImg().info(path(layerName), VolumeFormat.QCOW2.id());
    }

    @Override
    public void rename(String from, String to) {
        context.files().move(path(from), path(to));
    }

    @Override
    public void remove(String layerName) {
        context.files().delete(path(layerName));
    }

    @Override
    public boolean sameImage(String a, String b) {
        try {
            Object keyA = Files.readAttributes(path(a), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
            Object keyB = Files.readAttributes(path(b), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .fileKey();
            return keyA != null && keyA.equals(keyB);
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The record is the file {@code .<name>.vsm-chain} beside the volume (no image name, so never
     * listed), read without following a link; a record longer than {@value #MAX_INTENT} bytes is
     * none vsm wrote.
     */
    @Override
    public Optional<String> readIntent() {
        Path record = intentFile();
        if (!Files.exists(record, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        try (SeekableByteChannel in =
                Files.newByteChannel(record, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
            ByteBuffer buffer = ByteBuffer.allocate(MAX_INTENT + 1);
            while (buffer.hasRemaining() && in.read(buffer) >= 0) {
                // read up to one byte more than a record may hold
            }
            if (buffer.position() > MAX_INTENT) {
                throw StorageException.failed("'%s' is no intent record vsm wrote: it is too long", record);
            }
            return Optional.of(new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8).strip());
        } catch (IOException e) {
            throw StorageException.failed(e, "unable to read '%s' - %s", record, e.getMessage());
        }
    }

    /** By {@link HostFiles#replaceFile}: a temporary file written and synced by descriptor, renamed, the directory synced. */
    @Override
    public void writeIntent(String line) {
        if (!context.dryRun()) {
            context.files().replaceFile(intentFile(), (line + "\n").getBytes(StandardCharsets.UTF_8));
        }
    }

    @Override
    public void clearIntent() {
        if (!context.dryRun()) {
            context.files().delete(intentFile());
            context.files().sync(directory);
        }
    }

    /** The intent record of the chain of {@code image}, a volume's file ({@code .<file>.vsm-chain}). */
    static Path intentFile(Path image) {
        return image.resolveSibling("." + image.getFileName() + INTENT_SUFFIX);
    }

    private Path intentFile() {
        return intentFile(directory.resolve(name));
    }

    /**
     * {@code qemu-img create -u -F qcow2 -b <backing> -f qcow2 <temporary> <size> -o ...} in the
     * volume's directory, synced, renamed to {@code layerName}, the directory synced; a dry run
     * prints the command on the final name. The temporary name is {@link PartialImages}'s; qemu-img
     * writes the file created, opened by descriptor ({@link StorageTree.Dir#openRegular}: a link
     * put under the name is refused), with the backing layer's virtual size.
     */
    @Override
    public void createOverlay(String layerName, String backingLayer) {
        createOverlay(
                layerName,
                backingLayer,
                context.dryRun() ? -1 : info(backingLayer).virtualSize());
    }

    @Override
    public void createOverlay(String layerName, String backingLayer, long virtualSize) {
        Path target = path(layerName);
        if (context.dryRun()) {
            context.qemuImg().createBacked(target, backingLayer, VolumeFormat.QCOW2.id(), options);
            return;
        }
        HostFiles files = context.files();
        Path temp = new PartialImages(context.nodeName(), files).temporaryFor(target);
        try {
            files.createFile(temp); // mode 0640, which qemu-img keeps
            // qemu-img is given the file created, by descriptor, never its name: qemu-img create truncates
            // what it opens, and a writer of the directory may have put a link out under the temporary name
            try (StorageTree.Dir dir = new StorageTree(base).open(directory);
                    HeldFile held = dir.openRegular(temp.getFileName().toString())) {
                context.qemuImg()
                        .createBacked(held.path(), backingLayer, VolumeFormat.QCOW2.id(), virtualSize, options);
            } catch (IOException e) {
                throw StorageException.failed(e, "unable to open '%s' - %s", temp, e.getMessage());
            }
            files.sync(temp);
            files.move(temp, target);
        } catch (RuntimeException e) {
            if (Files.exists(temp, LinkOption.NOFOLLOW_LINKS)) {
                try {
                    files.delete(temp);
                } catch (RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            throw e;
        }
        files.sync(directory);
    }
}
