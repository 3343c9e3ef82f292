package dev.vsm.zeroout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Builds a fake sysfs tree, the way the kernel lays it out: {@code devices/virtual/block/<disk>}
 * with its {@code queue/}, partitions as sub-directories holding a {@code partition} file,
 * {@code class/block/<name>} as links, {@code block/<disk>} as links for whole disks.
 */
final class FakeSysfs {
    private FakeSysfs() {}

    /** A whole disk with its write_zeroes_max_bytes; returns its directory. */
    static Path disk(Path root, String name, long writeZeroesMaxBytes) throws IOException {
        Path dir = root.resolve("devices/virtual/block").resolve(name);
        Files.createDirectories(dir.resolve("queue"));
        Files.writeString(dir.resolve("queue/write_zeroes_max_bytes"), writeZeroesMaxBytes + "\n");
        link(root.resolve("block").resolve(name), dir);
        link(root.resolve("class/block").resolve(name), dir);
        return dir;
    }

    /** A partition of a disk made with {@link #disk}; returns its directory. */
    static Path partition(Path root, String disk, String name) throws IOException {
        Path dir = root.resolve("devices/virtual/block").resolve(disk).resolve(name);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("partition"), "1\n");
        link(root.resolve("class/block").resolve(name), dir);
        return dir;
    }

    /** {@code dev/block/<major>:<minor>}, the kernel's index by device number, for a device made with {@link #disk}. */
    static void number(Path root, String name, String majorMinor) throws IOException {
        link(
                root.resolve("dev/block").resolve(majorMinor),
                root.resolve("devices/virtual/block").resolve(name));
    }

    private static void link(Path link, Path target) throws IOException {
        Files.createDirectories(link.getParent());
        Files.createSymbolicLink(link, link.getParent().relativize(target));
    }
}
