package dev.vsm.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Starts a second JVM running a test main class, with the class path of the classes given
 * (their code sources), so tests can check what two processes do to each other.
 */
public final class ChildJvm {
    private ChildJvm() {}

    /** A process running {@code main}; stderr is merged into stdout. */
    public static Process start(Class<?> main, List<Class<?>> classPathOf, String... args) throws IOException {
        Set<String> path = new LinkedHashSet<>();
        path.add(codeSource(main));
        for (Class<?> c : classPathOf) {
            path.add(codeSource(c));
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xshare:auto");
        command.add("-cp");
        command.add(String.join(File.pathSeparator, path));
        command.add(main.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static String codeSource(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
