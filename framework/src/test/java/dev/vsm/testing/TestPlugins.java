package dev.vsm.testing;

import dev.vsm.spi.StoragePlugin;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Plugin jars made at test time (Kafka Connect's {@code TestPlugins} habit): the sources in
 * {@code src/test/resources/test-plugins/<name>/} are compiled against the SPI (and any jars
 * given) with {@link JavaCompiler}, and packed with the directory's other files
 * ({@code META-INF/services/...}) into {@code <name>.jar}.
 */
public final class TestPlugins {
    private TestPlugins() {}

    /**
     * Compiles and packs test plugin {@code name} into {@code dir/<name>.jar}.
     *
     * @param classPath jars the sources need besides the SPI (a library the plugin bundles)
     * @return the jar
     */
    public static Path jar(String name, Path dir, Path... classPath) {
        Path sources = sources(name);
        try {
            Files.createDirectories(dir);
            Path classes = Files.createTempDirectory(dir, "." + name + "-classes");
            try {
                compile(name, sources, classes, classPath);
                return pack(dir.resolve(name + ".jar"), sources, classes);
            } finally {
                Trees.delete(classes);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where the SPI's classes are (a directory in this module, a jar in others). */
    public static Path spiLocation() {
        try {
            return Path.of(StoragePlugin.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path sources(String name) {
        URL url = TestPlugins.class.getResource("/test-plugins/" + name);
        if (url == null) {
            throw new IllegalArgumentException(
                    "no test plugin sources test-plugins/" + name + " on the test class path");
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void compile(String name, Path sources, Path classes, Path... classPath) throws IOException {
        List<String> javaFiles;
        try (Stream<Path> walk = Files.walk(sources)) {
            javaFiles = walk.filter(p -> p.toString().endsWith(".java"))
                    .map(Path::toString)
                    .sorted()
                    .toList();
        }
        List<String> path = new ArrayList<>(List.of(spiLocation().toString()));
        for (Path p : classPath) {
            path.add(p.toString());
        }
        List<String> args = new ArrayList<>(List.of(
                "--release",
                "17",
                "-proc:none",
                "-d",
                classes.toString(),
                "-cp",
                String.join(File.pathSeparator, path)));
        args.addAll(javaFiles);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream messages = new ByteArrayOutputStream();
        int status = javac.run(null, messages, messages, args.toArray(String[]::new));
        if (status != 0) {
            throw new AssertionError("test plugin " + name + " does not compile against the SPI:\n"
                    + messages.toString(StandardCharsets.UTF_8));
        }
    }

    private static Path pack(Path jar, Path sources, Path classes) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            add(out, classes, p -> true);
            add(out, sources, p -> !p.toString().endsWith(".java"));
        }
        return jar;
    }

    private static void add(JarOutputStream out, Path root, Predicate<Path> wanted) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(Files::isRegularFile).filter(wanted).sorted().toList();
        }
        for (Path file : files) {
            out.putNextEntry(new JarEntry(root.relativize(file).toString().replace(File.separatorChar, '/')));
            Files.copy(file, out);
            out.closeEntry();
        }
    }
}
