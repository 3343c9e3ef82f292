package dev.vsm.plugin.lvm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether a path is a block device node (pve's {@code -b}); symbolic links such as {@code /dev/VG/LV} are followed. */
final class BlockDevices {
    private static final int S_IFMT = 0170000;
    private static final int S_IFBLK = 0060000;

    private BlockDevices() {}

    static boolean isBlockDevice(Path path) {
        try {
            Object mode = Files.getAttribute(path, "unix:mode");
            return mode instanceof Integer m && (m & S_IFMT) == S_IFBLK;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
