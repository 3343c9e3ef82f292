package dev.vsm.plugin.dir;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.Console;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.QemuImg.ImageFile;
import dev.vsm.spi.QemuImg.Inspection;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.files.DirLayout;
import dev.vsm.spi.files.ImageFileName;
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
 * Lists the images of a dir storage (pve's {@code list_images}): every
 * {@code images/<vmid>/<name>.<raw|qcow2|vmdk|subvol>} with a valid image name, its size and
 * allocation (from {@link QemuImg#inspect}, all images at once), and for a linked clone the
 * volume id that names its base.
 */
final class ImageLister {
    /** A VMID directory: written canonically and fitting an int, as volume names require. */
    private static final Pattern OWNER = Pattern.compile("0|[1-9][0-9]{0,9}");
    private static final Pattern IMAGE_FILE = Pattern.compile("[^/]+\\.(qcow2|raw|subvol|vmdk)");
    private static final Pattern BACKING = Pattern.compile("\\.\\./(\\d+)/([^/]+\\.(?:qcow2|raw|subvol|vmdk))");
    private static final Pattern NOT_IN_FORMAT = Pattern.compile("Image is not in \\S+ format$");

    private final String storeid;
    private final DirLayout layout;
    private final QemuImg qemuImg;
    private final Console console;

    ImageLister(String storeid, DirLayout layout, QemuImg qemuImg, Console console) {
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
    List<VolumeInfo> list(Integer vmid) {
        List<Path> files = new ArrayList<>();
        List<ImageFile> toInspect = new ArrayList<>();
        for (Path file : candidates(vmid)) {
            String format = ImageFileName.parse(file.getFileName().toString()).format();
            Optional<String> linkOut = layout.linkOut(file);
            if (linkOut.isPresent()) {
                console.warn("skipping '" + file + "': " + linkOut.get() + " (vsm does not follow symbolic links inside a storage)");
                continue;
            }
            Optional<BasicFileAttributes> stat = FileStat.stat(file);
            if (stat.isEmpty()) {
                console.warn("failed to stat '" + file + "'" + (Files.isSymbolicLink(file) ? " - dangling symlink?" : ""));
            } else if (stat.get().isDirectory() != format.equals("subvol")) {
                console.warn(String.format("expected format '%s', but '%s' is %s", format, file,
                        stat.get().isDirectory() ? "a directory" : "not a directory"));
            } else {
                files.add(file);
                if (!stat.get().isDirectory()) {
                    toInspect.add(new ImageFile(file, format));
                }
            }
        }
        Map<Path, Inspection> inspected = new HashMap<>();
        qemuImg.inspect(toInspect).forEach(i -> inspected.put(i.path(), i));

        List<VolumeInfo> images = new ArrayList<>();
        for (Path file : files) {
            String format = ImageFileName.parse(file.getFileName().toString()).format();
            Inspection inspection = inspected.get(file);
            if (inspection == null) {
                images.add(describe(file, ImageInfo.builder("subvol").build(), format));
                continue;
            }
            if (inspection.error() != null && NOT_IN_FORMAT.matcher(inspection.error().getMessage()).find()) {
                console.warn(String.format("image '%s' is not in expected format '%s', querying as raw", file, format));
                inspection = qemuImg.inspect(List.of(new ImageFile(file, "raw"))).get(0);
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
    List<String> volnames(int vmid) {
        return candidates(vmid).stream().map(f -> vmid + "/" + f.getFileName()).toList();
    }

    private List<Path> candidates(Integer vmid) {
        List<Path> owners = vmid != null ? List.of(layout.imageDir(vmid)) : FileStat.entries(layout.subdir(ContentType.IMAGES));
        List<Path> files = new ArrayList<>();
        for (Path ownerDir : owners) {
            String owner = ownerDir.getFileName().toString();
            if (!OWNER.matcher(owner).matches() || Long.parseLong(owner) > Integer.MAX_VALUE) {
                continue;
            }
            for (Path file : FileStat.entries(ownerDir)) {
                String name = file.getFileName().toString();
                if (IMAGE_FILE.matcher(name).matches() && ImageFileName.isValid(name)) {
                    files.add(file);
                }
            }
        }
        files.sort(FileStat.GLOB_ORDER);
        return files;
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
        return VolumeInfo.builder(storeid + ":" + volname, format, ContentType.IMAGES).size(info.virtualSize())
                .used(info.actualSize()).vmid(owner).ctime(ctime).parent(parent).build();
    }
}
