package dev.vsm.spi;

/**
 * The version of this SPI, with pve's APIVER/APIAGE rule: a plugin built for version {@code v}
 * is loaded when {@code VERSION - AGE <= v <= VERSION}.
 *
 * <p>Bump {@link #VERSION} whenever the SPI gains something; bump {@link #AGE} with it when the
 * change keeps older plugins working (a new default method), reset {@link #AGE} to 0 when it
 * does not.
 */
public final class StorageApi {
    /** The SPI version this framework implements. */
    public static final int VERSION = 2;
    /** How many versions back a plugin may have been built for and still load. */
    public static final int AGE = 1;

    private StorageApi() {}

    public static boolean accepts(int pluginVersion) {
        return pluginVersion >= VERSION - AGE && pluginVersion <= VERSION;
    }

    public static String acceptedRange() {
        return (VERSION - AGE) + ".." + VERSION;
    }
}
