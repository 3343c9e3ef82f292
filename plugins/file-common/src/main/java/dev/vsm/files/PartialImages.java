package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.PendingCleanup;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Images in the making. {@code alloc} and {@code clone} let qemu-img write a temporary file
 * {@code .<name>.vsm-tmp-<node>-<pid>.<start>-<random>} beside the final one and rename it into place
 * when it is complete, so a crash (kill -9, or a power cut: the file is synced before the rename
 * and its directory after it) leaves either a whole image under its name or no image at all.
 *
 * <p>A temporary file is provably vsm's own and abandoned when its name has this shape, names
 * this node, and its process no longer runs (a {@link ProcessStamp}: pid and start time, since pids are
 * handed out again): only then is it removed (by the next alloc or clone
 * into the same directory, and by {@code vsm cleanup}). The node is in the name because a
 * {@code shared} file storage is seen by other hosts, whose processes are not ours to judge. The
 * name never matches an image name ({@code *.raw|qcow2|vmdk}), so nothing lists it as a volume.
 */
public final class PartialImages {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String MARK = ".vsm-tmp-";
    private static final String TOMBSTONE_MARK = ".vsm-del-";
    private static final Pattern TEMPORARY = Pattern.compile("\\.(.+)\\.vsm-(?:tmp-(.+)-(" + ProcessStamp.PATTERN
            + ")-[0-9a-f]{8}|del-(.+)-(" + ProcessStamp.PATTERN + ")-[0-9a-f]{16})");

    private final String node;
    private final HostFiles files;

    public PartialImages(String node, HostFiles files) {
        this.node = requireNonNull(node, "node");
        this.files = requireNonNull(files, "files");
    }

    /** A fresh temporary name for {@code image}, in its directory. */
    public Path temporaryFor(Path image) {
        return image.resolveSibling("." + image.getFileName() + MARK + safeNode() + "-" + ProcessStamp.current() + "-"
                + HexFormat.of().toHexDigits(RANDOM.nextInt()));
    }

    private String safeNode() {
        return safe(node);
    }

    private static String safe(String node) {
        return node.replaceAll("[^A-Za-z0-9_.]", "_");
    }

    /**
     * The private name a removal by {@code node} renames {@code file} to before it checks and
     * removes it: {@code .<name>.vsm-del-<node>-<pid>.<start>-<random>}. A crash between the rename
     * and the removal leaves it; {@link #abandoned} finds it as it finds a temporary file.
     */
    public static Path tombstoneFor(String node, Path file) {
        return file.resolveSibling("." + file.getFileName() + TOMBSTONE_MARK + safe(node) + "-" + ProcessStamp.current()
                + "-" + HexFormat.of().toHexDigits(RANDOM.nextLong()));
    }

    /**
     * The abandoned temporary files and tombstones in one image directory (see the class comment
     * and {@link #tombstoneFor}), sorted, each with its attributes as found (read without following
     * links): regular files, and directories (a subvol whose import or removal was killed), which
     * are removed as trees by descriptor, never through a link inside them.
     */
    public Map<Path, BasicFileAttributes> abandoned(Path imageDir) {
        Map<Path, BasicFileAttributes> found = new TreeMap<>();
        if (!Files.isDirectory(imageDir, LinkOption.NOFOLLOW_LINKS)) {
            return found;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(
                imageDir,
                p -> p.getFileName().toString().contains(MARK)
                        || p.getFileName().toString().contains(TOMBSTONE_MARK))) {
            for (Path entry : entries) {
                Matcher m = TEMPORARY.matcher(entry.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                boolean tombstone = m.group(2) == null;
                String madeBy = tombstone ? m.group(4) : m.group(2);
                String stamp = tombstone ? m.group(5) : m.group(3);
                if (!madeBy.equals(safeNode()) || running(stamp)) {
                    continue;
                }
                BasicFileAttributes attrs;
                try {
                    attrs = Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (IOException e) {
                    continue; // gone meanwhile
                }
                if (attrs.isRegularFile() || attrs.isDirectory()) {
                    found.put(entry, attrs);
                }
            }
        } catch (IOException e) {
            return found; // unreadable: nothing provably ours to remove
        }
        return found;
    }

    /** The abandoned temporary files under every owner directory of {@code imagesDir}. */
    public Map<Path, BasicFileAttributes> abandonedUnder(Path imagesDir) {
        Map<Path, BasicFileAttributes> found = new TreeMap<>();
        for (Path owner : FileStat.entries(imagesDir)) {
            if (Files.isDirectory(owner, LinkOption.NOFOLLOW_LINKS)) {
                found.putAll(abandoned(owner));
            }
        }
        return found;
    }

    /** Removes what {@link #abandoned} found in {@code imageDir}; call with the storage lock held. */
    public void removeAbandoned(Path imageDir) {
        abandoned(imageDir).forEach(files::deleteIdentified);
    }

    /**
     * What {@code vsm cleanup} removes on a storage of this layout: the abandoned temporary files
     * under every owner directory of {@code images}, in {@code import} (disks extracted from OVAs,
     * streamed files) and in {@code iso}, {@code vztmpl} and {@code snippets} (files imported from
     * a stream); never one reached through a link out of the storage. Run after the storage lock
     * is released; a file already gone is no failure.
     */
    public Optional<PendingCleanup> pendingCleanup(DirLayout layout) {
        Map<Path, BasicFileAttributes> abandoned = new TreeMap<>(abandonedUnder(layout.subdir(ContentType.IMAGES)));
        abandoned.putAll(abandoned(layout.subdir(ContentType.IMPORT))); // disks extracted from OVAs, streamed files
        for (ContentType streamed : List.of(ContentType.ISO, ContentType.VZTMPL, ContentType.SNIPPETS)) {
            abandoned.putAll(abandoned(layout.subdir(streamed))); // files imported from a stream
        }
        // never delete through a link out of the storage
        abandoned.keySet().removeIf(p -> layout.linkOut(p).isPresent());
        if (abandoned.isEmpty()) {
            return Optional.empty();
        }
        List<String> items = abandoned.keySet().stream()
                .map(p -> layout.basePath().relativize(p).toString())
                .toList();
        // removed only while the name still holds the file judged abandoned (device, inode and birth time)
        return Optional.of(PendingCleanup.of(
                items,
                () -> abandoned.forEach((p, seen) -> {
                    try {
                        files.deleteIdentified(p, seen);
                    } catch (StorageException e) {
                        if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                            throw e;
                        }
                    }
                })));
    }

    private static boolean running(String stamp) {
        return ProcessStamp.parse(stamp).map(ProcessStamp::running).orElse(true); // not a stamp we wrote: leave it
    }
}
