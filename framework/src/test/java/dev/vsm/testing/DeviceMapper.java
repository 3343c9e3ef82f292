package dev.vsm.testing;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether this host's kernel offers device-mapper, which lvm2 needs to create and activate thin
 * pools, thin volumes and snapshots. The control node may exist without a driver behind it (as
 * in containers on kernels without device-mapper): then opening it fails with "No such device".
 */
public final class DeviceMapper {
    static final Path CONTROL = Path.of("/dev/mapper/control");

    private DeviceMapper() {}

    /** Why device-mapper cannot be used here, or empty when it can. */
    public static Optional<String> missing() {
        return missing(CONTROL);
    }

    static Optional<String> missing(Path control) {
        if (!Files.exists(control)) {
            return Optional.of(control + " does not exist: this kernel has no device-mapper");
        }
        try {
            new FileInputStream(control.toFile()).close();
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of(control + " cannot be opened (" + e.getMessage().replace(control + " ", "")
                    + "): this kernel has no device-mapper driver");
        }
    }
}
