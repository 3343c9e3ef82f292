package dev.vsm.zeroout;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A block device as the kernel names it.
 *
 * @param given the path the caller named ({@code /dev/VG/LV}, {@code /dev/loop3})
 * @param node  the device node it resolves to, symlinks followed ({@code /dev/dm-4})
 * @param name  the kernel name ({@code dm-4}, {@code sda1}), found by the node's device number: a
 *              node's own name need not be the kernel's ({@code /dev/mapper/vg-lv} is a node of
 *              its own where lvm2 makes the nodes without udev)
 * @param queue the whole disk whose request queue serves it ({@code sda} for {@code sda1})
 */
record BlockDevice(Path given, Path node, String name, String queue) {
    private static final int S_IFMT = 0170000;
    private static final int S_IFBLK = 0060000;

    public BlockDevice {
        requireNonNull(given, "given");
        requireNonNull(node, "node");
        requireNonNull(name, "name");
        requireNonNull(queue, "queue");
    }

    /**
     * Resolves a path to the block device it names. Refuses (BAD_INPUT) a missing path and
     * anything that is not a block device: a zero-out never writes through a path that is not one.
     */
    public static BlockDevice resolve(Path path, Sysfs sysfs) {
        Path node;
        try {
            node = path.toRealPath();
        } catch (NoSuchFileException e) {
            throw StorageException.badInput(
                    "'%s' does not exist - not zeroing a device that is not there " + "(activate the volume first)",
                    path);
        } catch (IOException e) {
            throw StorageException.badInput("cannot resolve '%s' - %s", path, e.getMessage());
        }
        if (!isBlockDevice(node)) {
            throw StorageException.badInput(
                    "'%s' is not a block device%s - refusing to zero it",
                    path, node.equals(path.toAbsolutePath()) ? "" : " ('" + node + "')");
        }
        String name = kernelName(node, sysfs);
        return new BlockDevice(path, node, name, sysfs.queueOf(name));
    }

    /** The name sysfs gives the node's device number, else (sysfs not telling) the node's file name. */
    private static String kernelName(Path node, Sysfs sysfs) {
        try {
            if (Files.getAttribute(node, "unix:rdev") instanceof Long rdev) {
                Optional<String> name = sysfs.nameOf(DeviceIdentity.number(rdev));
                if (name.isPresent()) {
                    return name.get();
                }
            }
        } catch (IOException | UnsupportedOperationException e) {
            // fall back to the node's name
        }
        return node.getFileName().toString();
    }

    /** True when the path (symlinks followed) is a block special file. */
    public static boolean isBlockDevice(Path path) {
        try {
            Object mode = Files.getAttribute(path, "unix:mode");
            return mode instanceof Integer m && (m & S_IFMT) == S_IFBLK;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
