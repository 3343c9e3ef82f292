package dev.vsm.cli.support;

import dev.vsm.config.ClusterSettings;
import dev.vsm.engine.cluster.Cluster;
import dev.vsm.engine.cluster.ClusterConnector;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Finds cluster mode's implementation. Its jars (Curator, ZooKeeper, Netty, Guava) are kept in
 * {@code lib/cluster/} beside {@code vsm-cli.jar}, off the main class path: the JVM opens every
 * jar on the class path when a service is looked up, which cost every command start-up time, cluster
 * mode or not. On a class path that has them (tests, an IDE) they are found there.
 */
final class ClusterLoader implements ClusterConnector {
    static final String DIRECTORY = "lib/cluster";

    /** Looks for the implementation only when a connection is opened (a {@code cluster:} block was seen). */
    @Override
    public Cluster open(
            ClusterSettings settings, Path cacheFile, Duration lockTimeout, boolean changing, Consumer<String> warn) {
        return connector().open(settings, cacheFile, lockTimeout, changing, warn);
    }

    private static ClusterConnector connector() {
        ClassLoader parent = ClusterLoader.class.getClassLoader();
        var own = ServiceLoader.load(ClusterConnector.class, parent).findFirst();
        if (own.isPresent()) {
            return own.get();
        }
        Path dir = directory();
        List<URL> jars = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path jar :
                    files.filter(f -> f.toString().endsWith(".jar")).sorted().toList()) {
                jars.add(jar.toUri().toURL());
            }
        } catch (IOException e) {
            throw StorageException.failed(
                    "cluster mode needs the ZooKeeper client jars in %s: %s (rebuild vsm)", dir, e.getMessage());
        }
        @SuppressWarnings("resource") // lives as long as the process: its classes run the cluster connection
        URLClassLoader loader = new URLClassLoader("vsm-cluster", jars.toArray(URL[]::new), parent);
        return ServiceLoader.load(ClusterConnector.class, loader)
                .findFirst()
                .orElseThrow(() -> StorageException.failed(
                        "cluster mode needs the ZooKeeper client jars in %s: no cluster implementation there (rebuild vsm)",
                        dir));
    }

    /** {@code lib/cluster} beside the jar this class came from. */
    private static Path directory() {
        try {
            Path jar = Path.of(ClusterLoader.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            return jar.resolveSibling(DIRECTORY);
        } catch (URISyntaxException | RuntimeException e) {
            throw StorageException.failed("cluster mode: cannot tell where vsm's jars are: %s", e.getMessage());
        }
    }
}
