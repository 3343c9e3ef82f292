package dev.vsm.testing;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.opentest4j.TestAbortedException;

/**
 * Whether this host's kernel offers device-mapper, which lvm2 needs to create and activate thin
 * pools, thin volumes and snapshots. The control node may exist without a driver behind it (as
 * in containers on kernels without device-mapper): then opening it fails with "No such device".
 *
 * <p>{@link #requireOrSkip()} is the one deliberate exception to {@link HostTools}' rule that a
 * test must fail, not skip, under CI: device-mapper is part of the kernel, which no test command
 * can install, and the CI machines run on a kernel without it.
 */
public final class DeviceMapper {
    static final Path CONTROL = Path.of("/dev/mapper/control");

    private DeviceMapper() {}

    /** Why device-mapper cannot be used here, or empty when it can. */
    public static Optional<String> missing() {
        return missing(CONTROL);
    }

    /**
     * Skips the test, saying why, when device-mapper cannot be used here; the reason also goes to
     * stderr, as the build's console shows no skip reasons. The skip stays a skip under
     * {@code CI=true}: no test command can add device-mapper to the running kernel.
     */
    public static void requireOrSkip() {
        requireOrSkip(CONTROL);
    }

    static void requireOrSkip(Path control) {
        Optional<String> reason = missing(control);
        if (reason.isPresent()) {
            String message = "skipped, needs device-mapper: " + reason.get();
            System.err.println(message);
            throw new TestAbortedException(message);
        }
    }

    static Optional<String> missing(Path control) {
        if (!Files.exists(control)) {
            return Optional.of(control + " does not exist: this kernel has no device-mapper");
        }
        try {
            new FileInputStream(control.toFile()).close();
            return Optional.empty();
        } catch (IOException e) {
            String why = e.getMessage().replace(control.toString(), "").strip();
            if (why.startsWith("(") && why.endsWith(")")) {
                why = why.substring(1, why.length() - 1);
            }
            return Optional.of(control + " cannot be opened (" + why + "): this kernel has no device-mapper driver");
        }
    }
}
