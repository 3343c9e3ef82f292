package dev.vsm.testing;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;

/**
 * A loop device over a sparse file in a temp directory ({@code losetup -f --show}), detached and
 * deleted by {@link #close()}. Needs root and losetup: skips without them, fails under CI.
 */
public final class LoopDevice implements AutoCloseable {
    static final String LOSETUP = "/sbin/losetup";

    private final Path dir;
    private final Path file;
    private final long sizeBytes;
    private String device;

    private LoopDevice(Path dir, Path file, long sizeBytes) {
        this.dir = dir;
        this.file = file;
        this.sizeBytes = sizeBytes;
    }

    /** A new loop device of {@code sizeBytes} (sparse: it takes no space until written). */
    public static LoopDevice create(long sizeBytes) {
        return create(sizeBytes, false);
    }

    /** A new read-only loop device ({@code losetup -r}): every write to it fails, for tests of failing tools. */
    public static LoopDevice createReadOnly(long sizeBytes) {
        return create(sizeBytes, true);
    }

    private static LoopDevice create(long sizeBytes, boolean readOnly) {
        HostTools.require("loop devices", LOSETUP);
        if (!Files.exists(Path.of("/dev/loop-control"))) {
            HostTools.unavailable("loop device support (/dev/loop-control missing)");
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("vsm-loop-");
            Path file = dir.resolve("disk.img");
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                f.setLength(sizeBytes);
            }
            LoopDevice loop = new LoopDevice(dir, file, sizeBytes);
            HostTools.Result r = readOnly
                    ? HostTools.run(Map.of(), LOSETUP, "-r", "-f", "--show", file.toString())
                    : HostTools.run(Map.of(), LOSETUP, "-f", "--show", file.toString());
            if (!r.ok()) {
                loop.close();
                throw HostTools.unavailable(
                        "a free loop device: losetup -f --show failed: " + (r.out() + r.err()).strip());
            }
            loop.device = r.out().strip();
            return loop;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A second loop device on an existing file (one another loop device may use): closing it
     * detaches it and leaves the file.
     */
    public static LoopDevice on(Path file) {
        HostTools.require("loop devices", LOSETUP);
        LoopDevice loop;
        try {
            loop = new LoopDevice(null, file, Files.size(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        HostTools.Result r = HostTools.run(Map.of(), LOSETUP, "-f", "--show", file.toString());
        if (!r.ok()) {
            throw HostTools.unavailable("a free loop device: losetup -f --show failed: " + (r.out() + r.err()).strip());
        }
        loop.device = r.out().strip();
        return loop;
    }

    /** The device node, e.g. {@code /dev/loop3}. */
    public Path path() {
        if (device == null) {
            throw new IllegalStateException("loop device is closed");
        }
        return Path.of(device);
    }

    /** The sparse file behind the device. */
    public Path file() {
        return file;
    }

    public long sizeBytes() {
        return sizeBytes;
    }

    /** Fills the whole device with pseudo-random bytes (through the device, so the page cache sees it). */
    public void fillRandom(long seed) {
        byte[] block = new byte[1 << 20];
        Random random = new Random(seed);
        try (RandomAccessFile f = new RandomAccessFile(path().toFile(), "rw")) {
            for (long done = 0; done < sizeBytes; done += block.length) {
                random.nextBytes(block);
                f.write(block, 0, (int) Math.min(block.length, sizeBytes - done));
            }
            f.getFD().sync();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How many bytes of the device are not zero, read through the device. */
    public long nonZeroBytes() {
        byte[] block = new byte[1 << 20];
        long nonZero = 0;
        try (RandomAccessFile f = new RandomAccessFile(path().toFile(), "r")) {
            int n;
            while ((n = f.read(block)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (block[i] != 0) {
                        nonZero++;
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return nonZero;
    }

    /** Detaches the device and deletes the file it made; safe to call twice. */
    @Override
    public void close() {
        String problem = null;
        if (device != null) {
            HostTools.Result r = HostTools.run(Map.of(), LOSETUP, "-d", device);
            if (!r.ok()) {
                problem = "losetup -d " + device + ": " + (r.out() + r.err()).strip();
            }
            device = null;
        }
        try {
            if (dir != null) {
                Files.deleteIfExists(file);
                Files.deleteIfExists(dir);
            }
        } catch (IOException e) {
            problem = (problem == null ? "" : problem + "; ") + "delete " + dir + ": " + e.getMessage();
        }
        if (problem != null) {
            throw new AssertionError("tearing down loop device: " + problem);
        }
    }
}
