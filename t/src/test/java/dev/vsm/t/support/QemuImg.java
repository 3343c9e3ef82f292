package dev.vsm.t.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The tests' own look at an image: {@code qemu-img info --output=json}, run independently of vsm. */
public final class QemuImg {
    private QemuImg() {}

    /** {@code qemu-img check} of a qcow2 image (the whole of its metadata is consistent); raw images have nothing to check. */
    public static void check(Path image) {
        if (!image.toString().endsWith(".qcow2")) {
            info(image);
            return;
        }
        try {
            Process p = new ProcessBuilder("qemu-img", "check", "-U", "-f", "qcow2", image.toString())
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError("qemu-img check " + image + " failed: " + out);
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    public static JsonNode info(Path image) {
        return info(image, false);
    }

    /**
     * {@code qemu-img info --backing-chain}: one element per image, top first; fails when an image
     * of the chain cannot be opened (a backing name that names nothing).
     */
    public static JsonNode backingChain(Path image) {
        return info(image, true);
    }

    private static JsonNode info(Path image, boolean chain) {
        try {
            Process p = new ProcessBuilder(
                            chain
                                    ? List.of(
                                            "qemu-img",
                                            "info",
                                            "--output=json",
                                            "--backing-chain",
                                            "-U",
                                            image.toString())
                                    : List.of("qemu-img", "info", "--output=json", "-U", image.toString()))
                    .redirectErrorStream(false)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError("qemu-img info " + image + " failed: " + err);
            }
            return new ObjectMapper().readTree(out);
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
