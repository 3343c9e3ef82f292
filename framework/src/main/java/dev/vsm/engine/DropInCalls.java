package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.PendingCleanup;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StoragePlugin;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Optional;

/**
 * Every call into a drop-in plugin's code runs with the plugin's class loader as the thread's
 * context class loader (Trino's ClassLoaderSafe wrappers, Kafka Connect's LoaderSwap), so a
 * library inside the plugin that looks classes or resources up through the context class loader
 * ({@code ServiceLoader.load(Class)}, many JSON, XML and logging libraries) finds the plugin's
 * own jars and not vsm's class path. The wrappers are proxies of the SPI interfaces, so every
 * method is covered, also a default method the plugin does not override and methods a later SPI
 * adds. What the plugin hands back to be called later is wrapped too: the {@link Storage} from
 * {@code open}, the cleanup {@code freeImage} returns and a {@link PendingCleanup}'s task.
 */
final class DropInCalls implements InvocationHandler {
    private final Object target;
    private final ClassLoader loader;
    private final String source;

    private DropInCalls(Object target, ClassLoader loader, String source) {
        this.target = requireNonNull(target, "target");
        this.loader = requireNonNull(loader, "loader");
        this.source = requireNonNull(source, "source");
    }

    /** {@code plugin} from {@code source} (its jar or directory), each of whose calls runs under {@code loader}. */
    static StoragePlugin plugin(StoragePlugin plugin, ClassLoader loader, String source) {
        return proxy(StoragePlugin.class, plugin, loader, source);
    }

    /** The plugin's own object behind a wrapper, or {@code object} itself when it is none (for tests and messages). */
    static Object target(Object object) {
        return Proxy.isProxyClass(object.getClass()) && Proxy.getInvocationHandler(object) instanceof DropInCalls calls
                ? calls.target
                : object;
    }

    private static <T> T proxy(Class<T> type, T target, ClassLoader loader, String source) {
        return type.cast(Proxy.newProxyInstance(
                type.getClassLoader(), new Class<?>[] {type}, new DropInCalls(target, loader, source)));
    }

    @Override
    @SuppressWarnings("try") // the swap is the point; the body does not use it
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        Object result;
        try (ThreadContextClassLoader swap = new ThreadContextClassLoader(loader)) {
            result = method.invoke(target, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof NoClassDefFoundError missing) {
                // a class the plugin's loader cannot find only when first used, after the plugin loaded
                throw new StorageException(
                        StorageException.Kind.FAILED,
                        "storage plugin " + source + ": " + PluginRegistry.fixFor(missing),
                        missing);
            }
            throw e.getCause();
        }
        return wrap(result);
    }

    private Object wrap(Object result) {
        if (result instanceof Storage storage) {
            return proxy(Storage.class, storage, loader, source);
        }
        if (result instanceof Runnable task) {
            return runnable(task);
        }
        if (result instanceof PendingCleanup cleanup) {
            return PendingCleanup.of(cleanup.items(), runnable(cleanup.task()));
        }
        if (result instanceof Optional<?> optional && optional.isPresent()) {
            return Optional.of(wrap(optional.get()));
        }
        return result;
    }

    @SuppressWarnings("try") // the swap is the point; the body does not use it
    private Runnable runnable(Runnable task) {
        return () -> {
            try (ThreadContextClassLoader swap = new ThreadContextClassLoader(loader)) {
                task.run();
            }
        };
    }
}
