package dev.vsm.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the real tools (qemu-img) for tests, independently of the code under test. */
public final class Tools {
    private Tools() {}

    /** Runs a command in {@code dir}; fails the test when it fails. Returns stdout and stderr. */
    public static String run(Path dir, String... argv) {
        try {
            Process p = new ProcessBuilder(argv)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError(String.join(" ", argv) + " failed: " + out);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** {@code qemu-img info --output=json [-f <format>] <image>}. */
    public static JsonNode qemuImgInfo(Path image, String format) {
        List<String> argv =
                new java.util.ArrayList<>(List.of("qemu-img", "info", "--output=json", "-U", image.toString()));
        if (format != null) {
            argv.addAll(List.of("-f", format));
        }
        try {
            return new ObjectMapper().readTree(run(image.getParent(), argv.toArray(String[]::new)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
