package dev.vsm.t.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/** Test images made and looked at with the real qemu-img, independently of vsm. */
public final class Images {
    private static final int MIB = 1 << 20;

    private Images() {}

    /**
     * A raw disk of {@code mib} MiB with scattered data and zero runs: in every MiB, 256 KiB of
     * random data (seeded) holding a 4 KiB and a 64 KiB run of zeros; the rest never written.
     */
    public static Path raw(Path dir, String name, int mib, long seed) {
        Path file = dir.resolve(name);
        Random random = new Random(seed);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength((long) mib * MIB);
            byte[] data = new byte[256 * 1024];
            for (int i = 0; i < mib; i++) {
                random.nextBytes(data);
                java.util.Arrays.fill(data, 8192, 8192 + 4096, (byte) 0);
                java.util.Arrays.fill(data, 65536, 65536 + 65536, (byte) 0);
                f.seek((long) i * MIB + (i % 3) * 256 * 1024);
                f.write(data);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /** {@code qemu-img convert -f raw -O <format> <raw> <dir>/<name>}. */
    public static Path convert(Path raw, String format, Path target) {
        run("qemu-img", "convert", "-f", "raw", "-O", format, raw.toString(), target.toString());
        return target;
    }

    /** {@code qemu-img compare} and the virtual sizes: whether a guest sees the same disk in both. */
    public static boolean same(Path a, String formatA, Path b, String formatB) {
        long sizeA = QemuImg.info(a).get("virtual-size").asLong();
        long sizeB = QemuImg.info(b).get("virtual-size").asLong();
        assertThat(sizeB).as("virtual size of %s", b).isEqualTo(sizeA);
        Result r = exec("qemu-img", "compare", "-f", formatA, "-F", formatB, a.toString(), b.toString());
        assertThat(r.exit).as("qemu-img compare failed: %s", r.out).isLessThan(2);
        return r.exit == 0;
    }

    /** The files of a directory, names sorted (empty when it does not exist). */
    public static List<String> files(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (var list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String run(String... argv) {
        Result r = exec(argv);
        assertThat(r.exit).as("%s: %s", String.join(" ", argv), r.out).isZero();
        return r.out;
    }

    public record Result(int exit, String out) {}

    public static Result exec(String... argv) {
        try {
            Process p = new ProcessBuilder(new ArrayList<>(List.of(argv)))
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", argv) + " did not finish");
            }
            return new Result(p.exitValue(), out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
