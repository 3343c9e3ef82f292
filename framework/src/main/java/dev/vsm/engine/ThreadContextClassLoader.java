package dev.vsm.engine;

/**
 * Sets the current thread's context class loader for a block and puts the previous one back
 * when it closes (Trino's {@code ThreadContextClassLoader}, Kafka Connect's {@code LoaderSwap}):
 * {@code try (var swap = new ThreadContextClassLoader(loader)) { ... }}.
 */
final class ThreadContextClassLoader implements AutoCloseable {
    private final Thread thread;
    private final ClassLoader previous;

    public ThreadContextClassLoader(ClassLoader loader) {
        thread = Thread.currentThread();
        previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
    }

    @Override
    public void close() {
        thread.setContextClassLoader(previous);
    }
}
