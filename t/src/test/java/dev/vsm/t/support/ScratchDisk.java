package dev.vsm.t.support;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A sparse file attached to a free loop device ({@code losetup -f --show}), for tests that write
 * to a real block device. {@link #close()} detaches it and deletes the file; use it in
 * try-with-resources or an {@code @AfterEach} so that happens when a test fails too.
 */
public final class ScratchDisk implements AutoCloseable {
    private final Path file;
    private final Path device;

    private ScratchDisk(Path file, Path device) {
        this.file = file;
        this.device = device;
    }

    /** A {@code bytes}-long sparse file in {@code dir}, attached to a loop device. */
    public static ScratchDisk create(Path dir, long bytes) {
        Path file = dir.resolve("scratch-" + System.nanoTime() + ".img");
        try {
            try (var sparse = new java.io.RandomAccessFile(file.toFile(), "rw")) {
                sparse.setLength(bytes); // ftruncate: no blocks allocated
            }
            String loop = run("losetup", "-f", "--show", file.toString()).strip();
            return new ScratchDisk(file, Path.of(loop));
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // best effort: the temp dir goes anyway
            }
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
    }

    /**
     * Checks that this host can run real block-device tests: root, loop devices and the given
     * tools. Without them a test is skipped, except under CI ({@code CI=true}), where it fails.
     */
    public static void requireRootLoopAndTools(String... tools) {
        List<String> missing = new ArrayList<>();
        if (!"root".equals(System.getProperty("user.name"))) {
            missing.add("root");
        }
        if (!Files.exists(Path.of("/dev/loop-control"))) {
            missing.add("loop devices (/dev/loop-control; modprobe loop)");
        }
        for (String tool : tools) {
            if (!onPath(tool)) {
                missing.add(tool);
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        String why = "this test needs " + String.join(", ", missing) + " (t/run-tests installs the tools as root)";
        if ("true".equals(System.getenv("CI"))) {
            fail(why);
        }
        Assumptions.abort(why);
    }

    public Path device() {
        return device;
    }

    public Path file() {
        return file;
    }

    /** Fills the whole device with random bytes (written through the device, flushed). */
    public ScratchDisk fillRandom() {
        run("dd", "if=/dev/urandom", "of=" + device, "bs=1M", "oflag=direct", "status=none", "count=" + (size() >> 20));
        return this;
    }

    public long size() {
        return Long.parseLong(run("blockdev", "--getsize64", device.toString()).strip());
    }

    /** True when every byte of the device reads back zero. */
    public boolean allZero() {
        try (InputStream in = Files.newInputStream(device)) {
            byte[] buf = new byte[1 << 20];
            int n;
            while ((n = in.read(buf)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buf[i] != 0) {
                        return false;
                    }
                }
            }
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** True when the {@code length} bytes at {@code offset} all read back zero. */
    public boolean zeroAt(long offset, int length) {
        try (var channel = java.nio.channels.FileChannel.open(device)) {
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(length);
            while (buf.hasRemaining() && channel.read(buf, offset + buf.position()) > 0) {
                // read it all
            }
            for (byte b : buf.array()) {
                if (b != 0) {
                    return false;
                }
            }
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SHA-256 of the whole device, to show a run changed nothing. */
    public String sha256() {
        try (InputStream in = Files.newInputStream(device)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 20];
            int n;
            while ((n = in.read(buf)) > 0) {
                digest.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            run("losetup", "-d", device.toString());
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Runs a tool of the test's own (not vsm), returning its stdout; fails the test if it fails. */
    public static String run(String... argv) {
        try {
            Process p = new ProcessBuilder(argv).redirectErrorStream(false).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError(String.join(" ", argv) + " failed: " + err.strip());
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static boolean onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin";
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
