package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a path-based storage keeps each content type (pve's {@code get_subdir},
 * {@code filesystem_path} and the path half of {@code path_to_volume_id}).
 *
 * <p>Each content type lives in a sub-directory of the storage path: its
 * {@linkplain ContentType#defaultSubdir() default} ({@code images}, {@code template/iso}, ...) unless
 * the {@code content-dirs} property overrides it. Images live one level deeper, in
 * {@code images/<vmid>/}.
 */
public final class DirLayout {
    /** The storage property that overrides sub-directories: a list of {@code <content>=<relative path>}. */
    public static final String CONTENT_DIRS = "content-dirs";
    /** The storage property holding the base directory. */
    public static final String PATH = "path";

    /** pve's {@code pve-dir-override}: content type, '=', a path without ".." that does not end in '.'. */
    private static final Pattern OVERRIDE = Pattern.compile("([a-z]+)=(.+)", Pattern.DOTALL);

    private static final Pattern IMAGE_PATH = Pattern.compile("(\\d+)/([^/\\s]+)");
    /** Content types in the order pve's {@code path_to_volume_id} tries them. */
    private static final List<ContentType> PATH_ORDER = List.of(
            ContentType.IMAGES,
            ContentType.ISO,
            ContentType.VZTMPL,
            ContentType.BACKUP,
            ContentType.SNIPPETS,
            ContentType.IMPORT);

    private final Path path;
    private final Map<ContentType, String> contentDirs;

    /**
     * @param path        the storage's base directory
     * @param contentDirs sub-directory overrides per content type, relative to {@code path}
     */
    public DirLayout(Path path, Map<ContentType, String> contentDirs) {
        this.path = requireNonNull(path, "path");
        EnumMap<ContentType, String> dirs = new EnumMap<>(ContentType.class);
        dirs.putAll(requireNonNull(contentDirs, "contentDirs"));
        this.contentDirs = Collections.unmodifiableMap(dirs);
    }

    /**
     * The layout of a configured storage, from its {@code path} and {@code content-dirs}. Fails with
     * pve's {@code storage definition has no path} when the path is missing.
     */
    public static DirLayout of(StorageConfig config) {
        String path = config.string(PATH)
                .filter(p -> !p.isEmpty())
                .orElseThrow(() -> StorageException.badInput("storage definition has no path"));
        return new DirLayout(Path.of(path), parseContentDirs(config.list(CONTENT_DIRS)));
    }

    /**
     * Parses {@code content-dirs} entries such as {@code iso=isos/linux}. Fails (bad input) with
     * pve's {@code invalid override '<entry>'} when an entry is malformed, names {@code none}, holds
     * {@code ..}, ends in a dot or is too long (1023 characters, 255 per component), and with
     * {@code invalid content type '<type>'} for an unknown content type.
     */
    public static Map<ContentType, String> parseContentDirs(Collection<String> entries) {
        Map<ContentType, String> dirs = new EnumMap<>(ContentType.class);
        for (String entry : entries) {
            Matcher m = OVERRIDE.matcher(entry);
            if (!m.matches()) {
                throw invalidOverride(entry);
            }
            ContentType type = ContentType.fromId(m.group(1))
                    .orElseThrow(() -> StorageException.badInput("invalid content type '%s'", m.group(1)));
            String dir = m.group(2);
            if (type == ContentType.NONE || !isSafeRelativeDir(dir)) {
                throw invalidOverride(entry);
            }
            dirs.put(type, dir);
        }
        return dirs;
    }

    /** pve's rule, written out instead of its backtracking-prone regex {@code [^.]*(?:\.?[^.]+)+}. */
    private static boolean isSafeRelativeDir(String dir) {
        if (dir.isEmpty() || dir.contains("..") || dir.endsWith(".") || dir.length() >= 1023) {
            return false;
        }
        for (String component : dir.split("/")) {
            if (component.length() >= 255) {
                return false;
            }
        }
        return true;
    }

    private static StorageException invalidOverride(String entry) {
        return StorageException.badInput("invalid override '%s'", VolumeId.printable(entry));
    }

    /** The storage's base directory. */
    public Path basePath() {
        return path;
    }

    /** The sub-directory overrides in effect. */
    public Map<ContentType, String> contentDirs() {
        return contentDirs;
    }

    /** Where a content type lives. Fails with pve's {@code unknown vtype 'none'} for {@link ContentType#NONE}. */
    public Path subdir(ContentType type) {
        String sub = contentDirs.get(type);
        if (sub == null) {
            sub = type.defaultSubdir().orElseThrow(() -> StorageException.badInput("unknown vtype '%s'", type.id()));
        }
        // "<path>/<sub>" as pve joins them: an override with a leading slash stays under the path
        return Path.of(path + "/" + sub);
    }

    /** The directory of one guest's images: {@code <images>/<vmid>}. */
    public Path imageDir(int vmid) {
        return subdir(ContentType.IMAGES).resolve(Integer.toString(vmid));
    }

    /** The file (or, for subvol, directory) of a volume. Nothing needs to exist. */
    public Path path(VolumeName volume) {
        Path dir = volume.type() == ContentType.IMAGES ? imageDir(volume.vmid()) : subdir(volume.type());
        return dir.resolve(volume.name());
    }

    /**
     * The file of a volume's snapshot. Internal qcow2 snapshots live inside the image, so this is
     * the image itself; other formats fail with pve's {@code can't snapshot this image format}.
     */
    public Path path(VolumeName volume, String snapshot) {
        if (snapshot != null
                && !volume.hasFormat(VolumeFormat.QCOW2)
                && !volume.format().equals("qed")) {
            throw StorageException.badInput("can't snapshot this image format");
        }
        return path(volume);
    }

    /**
     * Why {@code file} (a path below the base directory, such as {@link #path(VolumeName)} gives)
     * would lead out of the storage through a symbolic link, or empty when it does not: a
     * directory on the way that is a link resolving outside the base directory's real path (a
     * link that stays inside, such as {@code images -> disks}, is followed), a dangling link, or
     * a file (or subvol directory) that is itself a link, wherever it points (writing through it
     * would change another file, inside the storage or out). The base directory may itself be a
     * link (a storage on another disk). Parts that do not exist yet are fine: vsm creates them as
     * directories and files, never as links. This is checked when a volume is used, so a link
     * planted between the check and the use is not caught; vsm creates no links itself.
     */
    public Optional<String> linkOut(Path file) {
        Path base = path.toAbsolutePath().normalize();
        Path real;
        try {
            real = base.toRealPath();
        } catch (IOException e) {
            return Optional.empty(); // no storage directory yet: nothing below it either
        }
        Path relative = base.relativize(file.toAbsolutePath().normalize());
        Path at = base;
        for (int i = 0; i < relative.getNameCount(); i++) {
            at = at.resolve(relative.getName(i));
            if (!Files.isSymbolicLink(at)) {
                if (!Files.exists(at, LinkOption.NOFOLLOW_LINKS)) {
                    return Optional.empty();
                }
                continue;
            }
            String target = linkTarget(at);
            if (i == relative.getNameCount() - 1) {
                return Optional.of(String.format("'%s' is a symbolic link (to '%s')", at, target));
            }
            try {
                Path resolved = at.toRealPath();
                if (!resolved.startsWith(real)) {
                    return Optional.of(String.format(
                            "'%s' is a symbolic link to '%s', outside the storage's directory '%s'",
                            at, resolved, real));
                }
            } catch (IOException e) {
                return Optional.of(String.format("'%s' is a dangling symbolic link (to '%s')", at, target));
            }
        }
        return Optional.empty();
    }

    /**
     * {@code file}, the path of volume {@code <storageId>:<volname>}, unless {@link #linkOut} finds
     * a way out of the storage on it: then bad input, one line naming the link and the fix.
     */
    public Path inside(String storageId, String volname, Path file) {
        linkOut(file).ifPresent(why -> {
            throw StorageException.badInput(
                    "volume '%s:%s': %s - vsm does not follow symbolic links inside a storage "
                            + "(remove the link, or move the file into the storage)",
                    storageId, VolumeId.printable(volname), why);
        });
        return file;
    }

    private static String linkTarget(Path link) {
        try {
            return Files.readSymbolicLink(link).toString();
        } catch (IOException e) {
            return "?";
        }
    }

    /**
     * What a path stands for, from its place in the layout and its file name (pve's
     * {@code path_to_volume_id} without the look-up of images). The path should be absolute and
     * free of symbolic links (the caller resolves it, as pve does with {@code abs_path}).
     */
    public Optional<PathVolume> volumeForPath(Path file) {
        String p = file.normalize().toString();
        for (ContentType type : PATH_ORDER) {
            String dir = subdir(type).normalize() + "/";
            if (!p.startsWith(dir)) {
                continue;
            }
            Optional<PathVolume> found = match(type, p.substring(dir.length()));
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    private static Optional<PathVolume> match(ContentType type, String rest) {
        boolean fits = switch (type) {
            case IMAGES -> {
                Matcher m = IMAGE_PATH.matcher(rest);
                yield m.matches() && DirVolumeNames.parseCanonical(m.group(1)) != null;
            }
            case ISO -> ContentFileNames.isoFormat(rest).isPresent();
            case VZTMPL -> ContentFileNames.templateFormat(rest).isPresent();
            case BACKUP -> ContentFileNames.backupFormat(rest).isPresent();
            case SNIPPETS -> !rest.contains("/");
            case IMPORT -> ContentFileNames.importFormat(rest).isPresent();
            default -> false;
        };
        if (!fits) {
            return Optional.empty();
        }
        String volname = type == ContentType.IMAGES ? rest : type.id() + "/" + rest;
        return Optional.of(new PathVolume(type, volname));
    }
}
