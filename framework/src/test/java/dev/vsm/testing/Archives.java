package dev.vsm.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * vzdump-style archives for tests, made with the real tools: tar archives holding a guest
 * configuration, compressed with gzip, lzop, zstd or bzip2, and VMA headers ({@link VmaWriter})
 * compressed with the same tools. The tools are required (under CI a missing one fails the test).
 */
public final class Archives {
    /** The compressors of vzdump's formats, by file suffix. */
    public static final Map<String, List<String>> COMPRESSORS = Map.of(
            "gz", List.of("/usr/bin/gzip", "-c"),
            "lzo", List.of("/usr/bin/lzop", "-c"),
            "zst", List.of("/usr/bin/zstd", "-q", "-c"),
            "bz2", List.of("/usr/bin/bzip2", "-c"));

    private Archives() {}

    /** Fails (under CI) or skips the test when tar or a compressor is missing. */
    public static void requireTools() {
        for (String tool :
                List.of("/usr/bin/tar", "/usr/bin/gzip", "/usr/bin/lzop", "/usr/bin/zstd", "/usr/bin/bzip2")) {
            if (!Files.isExecutable(Path.of(tool))) {
                HostTools.unavailable(
                        tool + " (vzdump archives); install it: apt-get install tar gzip lzop zstd bzip2");
            }
        }
    }

    /**
     * A tar archive of {@code files} (path inside the archive, starting with {@code ./}, to content),
     * compressed by {@code compression} ({@code gz}, {@code lzo}, {@code zst}, {@code bz2}) or not (null).
     */
    public static void tar(Path archive, Map<String, String> files, String compression) {
        try {
            Path src = Files.createTempDirectory(archive.getParent(), ".tar-src");
            for (Map.Entry<String, String> f : files.entrySet()) {
                Path p = src.resolve(f.getKey());
                Files.createDirectories(p.getParent());
                Files.writeString(p, f.getValue());
            }
            List<String> argv =
                    new ArrayList<>(List.of("/usr/bin/tar", "-cf", archive.toString(), "-C", src.toString()));
            if (compression != null) {
                argv.add(
                        1,
                        Map.of("gz", "-z", "lzo", "--lzop", "zst", "--zstd", "bz2", "--bzip2")
                                .get(compression));
            }
            argv.addAll(files.keySet());
            Tools.run(src, argv.toArray(String[]::new));
            Tools.run(archive.getParent(), "/usr/bin/rm", "-rf", src.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code bytes} written to {@code file}, compressed by {@code compression} or not (null). */
    public static void write(Path file, byte[] bytes, String compression) {
        try {
            if (compression == null) {
                Files.write(file, bytes);
                return;
            }
            Process p = new ProcessBuilder(COMPRESSORS.get(compression))
                    .redirectOutput(file.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            p.getOutputStream().write(bytes);
            p.getOutputStream().close();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new AssertionError(COMPRESSORS.get(compression) + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * A decompression bomb: a tar archive whose members are, in this order, {@code before} (path to
     * content), {@code ./big} of {@code zeros} zero bytes (a sparse file on the test's side) and
     * {@code after}, made by the real tar and piped through the compressor of {@code compression}.
     */
    public static void tarBomb(
            Path archive, Map<String, String> before, long zeros, Map<String, String> after, String compression) {
        try {
            Path src = Files.createTempDirectory(archive.getParent(), ".tar-src");
            try (java.io.RandomAccessFile big =
                    new java.io.RandomAccessFile(src.resolve("big").toFile(), "rw")) {
                big.setLength(zeros);
            }
            List<String> names = new ArrayList<>();
            for (Map<String, String> files : List.of(before, Map.of("./big", ""), after)) {
                for (Map.Entry<String, String> f : files.entrySet()) {
                    Path p = src.resolve(f.getKey());
                    if (!f.getKey().equals("./big")) {
                        Files.createDirectories(p.getParent());
                        Files.writeString(p, f.getValue());
                    }
                    names.add(f.getKey());
                }
            }
            List<String> tar = new ArrayList<>(List.of("/usr/bin/tar", "-cf", "-", "-C", src.toString()));
            tar.addAll(names);
            List<Process> pipeline = ProcessBuilder.startPipeline(List.of(
                    new ProcessBuilder(tar).redirectError(ProcessBuilder.Redirect.INHERIT),
                    new ProcessBuilder(COMPRESSORS.get(compression))
                            .redirectOutput(archive.toFile())
                            .redirectError(ProcessBuilder.Redirect.INHERIT)));
            for (Process p : pipeline) {
                if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    p.destroyForcibly();
                    throw new AssertionError(p.info().command().orElse("tar or " + compression) + " failed");
                }
            }
            Tools.run(archive.getParent(), "/usr/bin/rm", "-rf", src.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** As {@link #write}, with {@code zeros} zero bytes after {@code head}: a decompression bomb. */
    public static void bomb(Path file, byte[] head, long zeros, String compression) {
        try {
            Process p = new ProcessBuilder(COMPRESSORS.get(compression))
                    .redirectOutput(file.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            try (java.io.OutputStream in = p.getOutputStream()) {
                in.write(head);
                byte[] chunk = new byte[1 << 20];
                for (long left = zeros; left > 0; left -= chunk.length) {
                    in.write(chunk, 0, (int) Math.min(chunk.length, left));
                }
            }
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new AssertionError(COMPRESSORS.get(compression) + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** {@code text} as UTF-8. */
    public static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
