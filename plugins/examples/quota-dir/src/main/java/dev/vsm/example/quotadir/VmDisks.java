package dev.vsm.example.quotadir;

import static java.util.Objects.requireNonNull;

import dev.vsm.files.DirLayout;
import dev.vsm.files.ImageFileName;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The disk images of the VMs on a quota-dir storage, with their sizes (from qemu-img). */
final class VmDisks {
    /** One disk image: its file name, format, virtual size and bytes used on the host. */
    record Disk(int vmid, String name, VolumeFormat format, long virtualSize, long actualSize, Path path) {}

    private final DirLayout layout;
    private final QemuImg qemuImg;

    VmDisks(DirLayout layout, QemuImg qemuImg) {
        this.layout = requireNonNull(layout, "layout");
        this.qemuImg = requireNonNull(qemuImg, "qemuImg");
    }

    /** The disks of one VM, by name. Files that are not disk images of this VM are ignored. */
    List<Disk> of(int vmid) {
        List<Disk> disks = new ArrayList<>();
        for (Path file : list(layout.imageDir(vmid))) {
            String name = file.getFileName().toString();
            if (!ImageFileName.isValid(name)
                    || !name.matches("(vm|base)-" + vmid + "-.*")
                    || !Files.isRegularFile(file)) {
                continue;
            }
            ImageFileName image = ImageFileName.parse(name);
            if (!QuotaDirPlugin.FORMATS.contains(image.format())) {
                continue;
            }
            var info = qemuImg.info(file, image.format().id());
            disks.add(new Disk(vmid, name, image.format(), info.virtualSize(), info.actualSize(), file));
        }
        return disks;
    }

    /** The disks of every VM, by VM id and name. */
    List<Disk> all() {
        List<Disk> disks = new ArrayList<>();
        List<Integer> vmids = new ArrayList<>();
        for (Path dir : list(layout.subdir(dev.vsm.spi.ContentType.IMAGES))) {
            String name = dir.getFileName().toString();
            if (name.matches("[1-9][0-9]{0,8}") && Files.isDirectory(dir)) {
                vmids.add(Integer.parseInt(name));
            }
        }
        vmids.sort(Comparator.naturalOrder());
        for (int vmid : vmids) {
            disks.addAll(of(vmid));
        }
        return disks;
    }

    /** What a VM's disks add up to, virtual sizes. */
    long used(int vmid) {
        return of(vmid).stream().mapToLong(Disk::virtualSize).sum();
    }

    private static List<Path> list(Path dir) {
        List<Path> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            stream.forEach(entries::add);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw StorageException.failed(e, "cannot list '%s': %s", dir, e.getMessage());
        }
        entries.sort(Comparator.comparing(p -> p.getFileName().toString()));
        return entries;
    }
}
