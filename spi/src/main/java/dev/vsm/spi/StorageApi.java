package dev.vsm.spi;

/**
 * The version of this SPI, with pve's APIVER/APIAGE rule: a plugin built for version {@code v}
 * is loaded when {@code VERSION - AGE <= v <= VERSION}. {@code vsm apiinfo} prints both.
 *
 * <p>Bump {@link #VERSION} whenever the SPI gains something; bump {@link #AGE} with it when the
 * change keeps older plugins working (a new default method, a new {@link Operation} or
 * {@link Feature}), reset {@link #AGE} to 0 when it does not (a new abstract method, a changed
 * signature). Record each version here:
 *
 * <ul>
 *   <li>1: the first version, as first released: {@link StoragePlugin} and {@link Storage} with
 *       optional resize, create-base and clone (declared in {@link Storage#operations()}), and
 *       what the {@link StorageContext} offers; before the first release it also gained
 *       snapshots, rename, wipe and import/export ({@link Storage#importImage},
 *       {@link Storage#exportFormats}, {@link Storage#importFormats},
 *       {@link Storage#newVolumesReadZeros}; {@link QemuImg#convert}, {@link QemuImg#measure};
 *       {@link HostFiles#createFile}, for volume files other users cannot read).</li>
 * </ul>
 */
public final class StorageApi {
    /** The SPI version this framework implements. */
    public static final int VERSION = 1;
    /** How many versions back a plugin may have been built for and still load. */
    public static final int AGE = 0;

    private StorageApi() {}

    /** Whether a plugin built for {@code pluginVersion} can be loaded. */
    public static boolean accepts(int pluginVersion) {
        return pluginVersion >= VERSION - AGE && pluginVersion <= VERSION;
    }

    /** The accepted versions, as {@code min..max}, for messages. */
    public static String acceptedRange() {
        return (VERSION - AGE) + ".." + VERSION;
    }
}
