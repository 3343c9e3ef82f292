package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.Console;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.QemuImg.ImageFile;
import dev.vsm.spi.QemuImg.Inspection;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lists the images of a file storage (pve's {@code list_images}): every
 * {@code images/<vmid>/<name>.<raw|qcow2|vmdk|subvol>} with a valid image name, its size and
 * allocation (from {@link QemuImg#inspect}, all images at once), and for a linked clone the
 * volume id that names its base.
 */
public final class ImageLister {
    /** A VMID directory: written canonically and fitting an int, as volume names require. */
    private static final Pattern OWNER = Pattern.compile("0|[1-9][0-9]{0,9}");

    private static final List<String> IMAGE_EXTENSIONS = List.of(".qcow2", ".raw", ".subvol", ".vmdk");
    private static final Pattern BACKING = Pattern.compile("\\.\\./(\\d+)/([^/]+\\.(?:qcow2|raw|subvol|vmdk))");
    private static final Pattern NOT_IN_FORMAT = Pattern.compile("Image is not in \\S+ format$");

    private final String storeid;
    private final DirLayout layout;
    private final QemuImg qemuImg;
    private final Console console;

    public ImageLister(String storeid, DirLayout layout, QemuImg qemuImg, Console console) {
        this.storeid = requireNonNull(storeid, "storeid");
        this.layout = requireNonNull(layout, "layout");
        this.qemuImg = requireNonNull(qemuImg, "qemuImg");
        this.console = requireNonNull(console, "console");
    }

    /**
     * The images of one owner, or of all when {@code vmid} is null. An image that cannot be read
     * (a broken or hostile header, a file that vanished) is left out with a warning; the others
     * are still listed.
     */
    public List<VolumeInfo> list(Integer vmid) {
        List<Path> files = new ArrayList<>();
        List<ImageFile> toInspect = new ArrayList<>();
        Map<Path, VolumeFormat> formats = new HashMap<>();
        for (Candidate c : candidates(vmid, true)) {
            Path file = c.file();
            BasicFileAttributes stat = c.lstat();
            if (stat == null || stat.isSymbolicLink()) {
                Optional<String> linkOut = layout.linkOut(file);
                if (linkOut.isPresent()) {
                    console.warn("skipping '" + file + "': " + linkOut.get()
                            + " (vsm does not follow symbolic links inside a storage)");
                    continue;
                }
                stat = FileStat.stat(file).orElse(null);
            }
            if (stat == null) {
                console.warn(
                        "failed to stat '" + file + "'" + (Files.isSymbolicLink(file) ? " - dangling symlink?" : ""));
            } else if (stat.isDirectory() != (c.format() == VolumeFormat.SUBVOL)) {
                console.warn(String.format(
                        "expected format '%s', but '%s' is %s",
                        c.format(), file, stat.isDirectory() ? "a directory" : "not a directory"));
            } else {
                files.add(file);
                formats.put(file, c.format());
                if (!stat.isDirectory()) {
                    toInspect.add(new ImageFile(file, c.format().id()));
                }
            }
        }
        Map<Path, Inspection> inspected = new HashMap<>();
        qemuImg.inspect(toInspect).forEach(i -> inspected.put(i.path(), i));

        List<VolumeInfo> images = new ArrayList<>();
        for (Path file : files) {
            String format = formats.get(file).id();
            Inspection inspection = inspected.get(file);
            if (inspection == null) {
                images.add(describe(file, ImageInfo.builder(VolumeFormat.SUBVOL).build(), format));
                continue;
            }
            if (inspection.error() != null
                    && NOT_IN_FORMAT.matcher(inspection.error().getMessage()).find()) {
                console.warn(String.format("image '%s' is not in expected format '%s', querying as raw", file, format));
                inspection = qemuImg.inspect(List.of(new ImageFile(file, VolumeFormat.RAW.id())))
                        .get(0);
                format = "invalid";
            }
            if (inspection.error() != null) {
                console.warn(inspection.error().getMessage());
            } else {
                images.add(describe(file, inspection.info(), format));
            }
        }
        return images;
    }

    /** The volume names ({@code <vmid>/<name>}) of one owner's image files, read from the directory alone. */
    public List<String> volnames(int vmid) {
        return candidates(vmid, false).stream()
                .map(c -> vmid + "/" + c.file().getFileName())
                .toList();
    }

    /**
     * An image file found in an owner's directory, with the format its name gives, and its
     * lstat when the directories above it lead to no symbolic link out of the storage (null when
     * they may, or when lstat failed: then the file is checked on its own).
     */
    private record Candidate(Path file, VolumeFormat format, BasicFileAttributes lstat) {}

    /**
     * The image files, in the order of pve's glob over {@code images/*}{@code /*}: owner
     * directories are digits only, and '/' sorts before every digit, so owners in glob order, each
     * one's files in glob order, is the glob order of the whole paths. The owners' directories
     * are read on every core (a directory read and, with {@code lstat}, a stat per file, in cold
     * code); without {@code lstat} the candidates' {@code lstat} is null.
     */
    private List<Candidate> candidates(Integer vmid, boolean lstat) {
        Path images = layout.subdir(ContentType.IMAGES);
        // an owner's directory leads out of the storage only through itself or what is above it
        boolean imagesClean = vmid == null && layout.linkOut(images).isEmpty();
        List<Path> owners = vmid != null ? List.of(layout.imageDir(vmid)) : FileStat.entries(images);
        List<List<Candidate>> perOwner = (owners.size() > 1 ? owners.parallelStream() : owners.stream())
                .map(ownerDir -> ownerCandidates(ownerDir, imagesClean, lstat))
                .toList();
        List<Candidate> files = new ArrayList<>();
        perOwner.forEach(files::addAll);
        return files;
    }

    /** {@code imagesClean}: {@code images} itself was checked, and leads to no link out of the storage. */
    private List<Candidate> ownerCandidates(Path ownerDir, boolean imagesClean, boolean lstat) {
        String owner = ownerDir.getFileName().toString();
        if (!OWNER.matcher(owner).matches() || Long.parseLong(owner) > Integer.MAX_VALUE) {
            return List.of();
        }
        List<Candidate> files = new ArrayList<>();
        Boolean dirClean = null;
        for (Path file : FileStat.entries(ownerDir)) {
            String name = file.getFileName().toString();
            if (!hasImageExtension(name)) {
                continue;
            }
            VolumeFormat format;
            try {
                format = ImageFileName.parse(name).format();
            } catch (StorageException e) {
                continue; // not an image name vsm (and pve) accepts
            }
            if (!lstat) {
                files.add(new Candidate(file, format, null));
                continue;
            }
            if (dirClean == null) {
                dirClean = imagesClean
                        ? !Files.isSymbolicLink(ownerDir)
                        : layout.linkOut(ownerDir).isEmpty() && !Files.isSymbolicLink(ownerDir);
            }
            // one lstat per file; a file that is no symbolic link in a directory already checked
            // for links out of the storage needs nothing more (stat would see what lstat saw)
            files.add(
                    new Candidate(file, format, dirClean ? FileStat.lstat(file).orElse(null) : null));
        }
        return files;
    }

    /** pve's {@code [^/]+\.(qcow2|raw|subvol|vmdk)} on a name from a directory (which holds no '/'). */
    private static boolean hasImageExtension(String name) {
        for (String ext : IMAGE_EXTENSIONS) {
            if (name.length() > ext.length() && name.endsWith(ext)) {
                return true;
            }
        }
        return false;
    }

    private VolumeInfo describe(Path file, ImageInfo info, String format) {
        String name = file.getFileName().toString();
        int owner = Integer.parseInt(file.getParent().getFileName().toString());
        String parent = info.backingFile();
        Matcher base = parent == null ? null : BACKING.matcher(parent);
        String volname = base != null && base.matches()
                ? base.group(1) + "/" + base.group(2) + "/" + owner + "/" + name
                : owner + "/" + name;
        Long ctime = info.ctime() != null ? info.ctime() : FileStat.ctime(file);
        return VolumeInfo.builder(storeid + ":" + volname, format, ContentType.IMAGES)
                .size(info.virtualSize())
                .used(info.actualSize())
                .vmid(owner)
                .ctime(ctime)
                .parent(parent)
                .build();
    }
}
