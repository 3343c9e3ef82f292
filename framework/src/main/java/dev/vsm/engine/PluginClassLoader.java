package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The class loader of one drop-in plugin (Trino's {@code PluginClassLoader}, Kafka Connect's
 * isolation): child-first over the plugin's own jars, except for the shared packages — the SPI
 * ({@code dev.vsm.spi} and below) and the logging API ({@code org.slf4j}) — which always come
 * from vsm, so that the plugin's {@code StoragePlugin} is vsm's. Everything else the plugin sees
 * comes from its own jars or from the JDK (the platform class loader); vsm's other libraries
 * (Jackson, snakeyaml, picocli, ...) and other plugins are invisible to it, so a plugin may
 * bundle any version of any library without clashing with vsm's or another plugin's.
 *
 * <p>Resources follow the same rule, and {@link #getResources} does not include vsm's class
 * path: {@link java.util.ServiceLoader} finds the plugin's own providers only, not the
 * built-in plugins a second time.
 */
final class PluginClassLoader extends URLClassLoader {
    /** The packages a plugin shares with vsm, as class-name prefixes. */
    public static final List<String> SHARED_PACKAGES = List.of("dev.vsm.spi.", "org.slf4j.");

    private final ClassLoader vsm;

    static {
        registerAsParallelCapable();
    }

    /**
     * @param name      the plugin, for messages and stack traces (its jar or directory)
     * @param classPath the plugin's jars
     * @param vsm       the class loader the shared packages come from
     */
    public PluginClassLoader(String name, List<URL> classPath, ClassLoader vsm) {
        super(requireNonNull(name, "name"), classPath.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
        this.vsm = requireNonNull(vsm, "vsm");
    }

    /** Whether a class (binary name) or resource (path) belongs to a package shared with vsm. */
    static boolean isShared(String className) {
        for (String prefix : SHARED_PACKAGES) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isSharedResource(String path) {
        return isShared(path.replace('/', '.'));
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (isShared(name)) {
            return vsm.loadClass(name);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null && !name.startsWith("java.")) {
                try {
                    c = findClass(name);
                } catch (ClassNotFoundException notInThePlugin) {
                    // the JDK's, below
                }
            }
            if (c == null) {
                c = getParent().loadClass(name);
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    @Override
    public URL getResource(String name) {
        if (isSharedResource(name)) {
            return vsm.getResource(name);
        }
        URL url = findResource(name);
        return url != null ? url : getParent().getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
        if (isSharedResource(name)) {
            return vsm.getResources(name);
        }
        List<URL> urls = new ArrayList<>(Collections.list(findResources(name)));
        urls.addAll(Collections.list(getParent().getResources(name)));
        return Collections.enumeration(urls);
    }

    @Override
    public String toString() {
        return "PluginClassLoader[" + getName() + "]";
    }
}
