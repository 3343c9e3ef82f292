package dev.vsm.zeroout;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/** A block device node of this host, for tests that only stat it (dry runs, resolution). */
final class HostBlockDevice {
    private HostBlockDevice() {}

    /** The first block device node in /dev; fails under CI ({@code CI=true}) when there is none, else skips. */
    static Path any() {
        try (Stream<Path> dev = Files.list(Path.of("/dev"))) {
            return dev.filter(BlockDevice::isBlockDevice).sorted().findFirst().orElseGet(HostBlockDevice::none);
        } catch (IOException e) {
            return none();
        }
    }

    private static Path none() {
        if ("true".equals(System.getenv("CI"))) {
            fail("no block device node in /dev: the zero-out tests need one (a loop device will do: modprobe loop)");
        }
        Assumptions.abort("no block device node in /dev");
        return null;
    }
}
