package dev.vsm.spi;

/**
 * The version of this SPI, with pve's APIVER/APIAGE rule: a plugin built for version {@code v}
 * is loaded when {@code VERSION - AGE <= v <= VERSION}. {@code vsm apiinfo} prints both.
 *
 * <h2>What a plugin jar can rely on</h2>
 *
 * A plugin jar built against version {@code v} keeps linking and working against every SPI that
 * accepts {@code v}: no class, method, constructor or constant it can reach is removed or changes
 * its signature or meaning, no abstract method is added to an interface it implements, and every
 * value it constructs stays constructible as it was. A plugin's source keeps compiling, too. The
 * build checks both: {@code japicmp} ({@code spi/pom.xml}) compares the SPI with the baseline jar
 * {@code spi/api/vsm-spi-baseline.jar} and fails on any binary- or source-incompatible change, a
 * new abstract method on any interface among them (which japicmp alone rates binary-compatible).
 *
 * <p>Compatible changes, which bump {@link #VERSION} and {@link #AGE} together:
 * <ul>
 *   <li>a new default method on {@link Storage} or {@link StoragePlugin} (a new optional
 *       operation comes as a default method that refuses with {@link Operation#unsupportedBy},
 *       plus a constant of {@link Operation});</li>
 *   <li>a new constant of an enum ({@link Operation}, {@link Feature}, {@link ContentType},
 *       {@link StreamFormat}, ...): a plugin must not assume a switch over one is exhaustive;</li>
 *  <li>a new field of a value. The rule for values: every value is a final class, none is a
 *       record. Values with several optional parts are made with builders or static factories
 *       ({@link VolumeInfo#builder}, {@link ImageInfo#builder}, {@link VolumeName#builder},
 *       {@link PluginSchema#builder}, {@link ImageConversion#builder}, {@link StorageStatus#of},
 *       {@link AllocRequest#of}, ...); small ones ({@link VolumeId}, {@link StorageConfig},
 *       {@link SourceImage}, ...) have a public constructor. A new field gets a builder setter or
 *       a new constructor or factory, with a default, and the old ones stay. A record could not
 *       grow so: its canonical constructor, and the accessors it must have, change with each new
 *       component ({@code SpiDependenciesTest} holds the rule);</li>
 *   <li>a new class, or a new method on a value;</li>
 *   <li>a new default method on an interface the engine implements ({@link StorageContext},
 *       {@link QemuImg}, {@link HostFiles}, ...): plugins call those and do not implement them,
 *       but a test's recording context does, so they grow by default methods too.</li>
 * </ul>
 * Incompatible changes (a removed or changed method, a new abstract method on any interface, a
 * value's constructor or factory removed) reset {@link #AGE} to 0, so that vsm refuses
 * older plugins with a message instead of failing in them later; the baseline jar is then
 * regenerated ({@code spi/api/update-baseline.sh}, CONTRIBUTING.md).
 *
 * <p>Record each version here:
 *
 * <ul>
 *   <li>1: the first version, not yet released: {@link StoragePlugin} and {@link Storage} with
 *       the optional operations of {@link Operation} (declared in {@link Storage#operations()},
 *       per volume {@link Storage#hasFeature}), the values made with builders and factories,
 *       the formats and preallocation modes as types, and what the {@link StorageContext}
 *       offers. Until the first release, version 1 changes without a bump; the baseline jar
 *       records where it stands.</li>
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
