package testplugin.ctx;

/** A class only in this plugin's jar: found through the context class loader only when it is the plugin's. */
public final class Hidden {
    private Hidden() {}

    /** Loads this class by name through the thread's context class loader, as libraries do. */
    static String lookUp() {
        try {
            return Class.forName("testplugin.ctx.Hidden", true, Thread.currentThread().getContextClassLoader()).getSimpleName();
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("context class loader " + Thread.currentThread().getContextClassLoader()
                    + " does not see the plugin's classes", e);
        }
    }
}
