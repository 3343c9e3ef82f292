package dev.vsm.plugin.lvm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Stands in for the node device-mapper would make for an active LV: a symlink
 * {@code /dev/<vg>/<lv>} to a real block device (a scratch loop device). These machines have no
 * device-mapper, so without it saferemove never reaches the zeroing. Removed again by {@link #close()}.
 */
final class DeviceNode implements AutoCloseable {
    private final Path link;

    private DeviceNode(Path link) {
        this.link = link;
    }

    static DeviceNode link(String vg, String lv, Path target) {
        Path link = Path.of("/dev", vg, lv);
        try {
            Files.createDirectories(link.getParent());
            Files.createSymbolicLink(link, target);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new DeviceNode(link);
    }

    /** The symlink, {@code /dev/<vg>/<lv>}. */
    Path link() {
        return link;
    }

    @Override
    public void close() {
        try {
            Files.deleteIfExists(link);
            try (var entries = Files.list(link.getParent())) {
                if (entries.findAny().isEmpty()) {
                    Files.delete(link.getParent());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
