package dev.vsm.t.support;

import dev.vsm.testing.LoopDevice;
import dev.vsm.testing.LoopVolumeGroup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * {@code /dev/<vg>/<lv>} symlinks to real block devices, standing in for the nodes device-mapper
 * would make (these machines cannot activate LVs); removed after each test, pass or fail.
 */
public final class StandInNodes implements AfterEachCallback {
    private final LoopVolumeGroup vg;
    private Path nodeDir;

    public StandInNodes(LoopVolumeGroup vg) {
        this.vg = vg;
    }

    /** {@code /dev/<vg>/<lv>} pointing at {@code device}. */
    public void link(String lv, LoopDevice device) throws IOException {
        link(lv, device.path());
    }

    /** {@code /dev/<vg>/<lv>} pointing at the block device {@code device}. */
    public void link(String lv, Path device) throws IOException {
        nodeDir = Path.of("/dev", vg.name());
        Files.createDirectories(nodeDir);
        Files.createSymbolicLink(nodeDir.resolve(lv), device);
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        remove();
    }

    /** Removes the links and their directory (a test that needs the nodes gone before it ends). */
    public void remove() throws IOException {
        if (nodeDir != null && Files.isDirectory(nodeDir)) {
            try (var links = Files.list(nodeDir)) {
                for (Path link : links.toList()) {
                    Files.delete(link);
                }
            }
            Files.delete(nodeDir);
        }
    }
}
