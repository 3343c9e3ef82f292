package dev.vsm.t.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * A qcow2 volume's bytes as a guest sees them, independently of vsm: writes through {@code qemu-io},
 * mirrored into a model the test keeps, and the whole image read back and compared with it.
 */
public final class QemuIo {
    private QemuIo() {}

    /** Writes {@code length} bytes of {@code pattern} at {@code offset} into the image, as a guest would, and into {@code model}. */
    public static void write(Path image, byte[] model, int pattern, int offset, int length) {
        run("qemu-io", "-f", "qcow2", "-c", "write -P " + pattern + " " + offset + " " + length, image.toString());
        Arrays.fill(model, offset, offset + length, (byte) pattern);
    }

    /** Asserts that the image (qcow2, read through its backing chain) holds exactly {@code expected}; {@code scratch} takes a temporary copy. */
    public static void assertReadsAs(String what, Path image, byte[] expected, Path scratch) {
        Path raw = scratch.resolve("read.raw");
        run("qemu-img", "convert", "-U", "-f", "qcow2", "-O", "raw", image.toString(), raw.toString());
        try {
            byte[] data = Files.readAllBytes(raw);
            Files.delete(raw);
            assertThat(data.length).as("size of %s", what).isEqualTo(expected.length);
            assertThat(Arrays.mismatch(data, expected))
                    .as("first byte of %s that differs", what)
                    .isEqualTo(-1);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Runs a tool; its exit status must be 0 (else an AssertionError with its output). */
    public static String run(String... argv) {
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError(String.join(" ", argv) + " failed: " + out);
            }
            return out;
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
