package dev.vsm.config;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The storage configuration as read: every storage in file order, typed and checked against its
 * plugin's schema, the sections of types that are not loaded (kept, not usable), the warnings
 * about those, and the digest of the file for optimistic concurrency ({@code vsm set --digest}).
 * Immutable.
 */
public final class StorageConfigs {
    /** Where the configuration came from. */
    public enum Origin {
        /** Read from the configuration file. */
        FILE,
        /** The file does not exist: vsm's built-in default (one {@code dir} storage {@code local}). */
        BUILT_IN_DEFAULT,
        /** A file named with {@code --config} that does not exist yet: no storages, until an edit creates it. */
        NEW_FILE,
        /** Read from ZooKeeper in cluster mode ({@link ClusterSettings}); {@link #file()} is the local file. */
        CLUSTER
    }

    private final Path file;
    private final Origin origin;
    /** What the digest is computed over, until {@link #digest()} first asks (then null). */
    private byte[] digestBytes;

    private String digest;
    private final ConfigContents contents;
    private final List<String> warnings;

    /**
     * @param digestBytes what {@link #digest()} is computed over, on first use: few commands show
     *                    it, and SHA-1 starts the JDK's security providers (about 15 ms)
     */
    StorageConfigs(Path file, Origin origin, byte[] digestBytes, ConfigContents contents, List<String> warnings) {
        this.file = requireNonNull(file, "file");
        this.origin = requireNonNull(origin, "origin");
        this.digestBytes = requireNonNull(digestBytes, "digestBytes").clone();
        this.contents = requireNonNull(contents, "contents");
        this.warnings = List.copyOf(warnings);
    }

    /** The configuration file (whether or not it exists). */
    public Path file() {
        return file;
    }

    public Origin origin() {
        return origin;
    }

    /** SHA-1 (hex) of the file's bytes; of no bytes when the file does not exist. */
    public synchronized String digest() {
        if (digest == null) {
            digest = ConfigReader.sha1(digestBytes);
            digestBytes = null;
        }
        return digest;
    }

    /** The usable storages, by id, in file order. */
    public Map<String, StorageConfig> storages() {
        return contents.storages();
    }

    public Optional<StorageConfig> storage(String id) {
        return Optional.ofNullable(contents.storages().get(id));
    }

    /**
     * The storage {@code id}.
     *
     * @throws StorageException (BAD_INPUT) pve's {@code storage '<id>' does not exist}, or that its
     *                          type is not loaded
     */
    public StorageConfig require(String id) {
        StorageConfig config = contents.storages().get(id);
        if (config != null) {
            return config;
        }
        UnloadedSection unloaded = contents.unloaded().get(id);
        if (unloaded != null) {
            throw StorageException.badInput(
                    "storage '%s' has type '%s', which is not loaded (see 'vsm plugins')",
                    id, VolumeId.printable(unloaded.type()));
        }
        throw StorageException.badInput("storage '%s' does not exist", VolumeId.printable(id));
    }

    /** The sections whose type has no loaded plugin, by id, in file order. */
    public Map<String, UnloadedSection> unloaded() {
        return contents.unloaded();
    }

    /** Every storage id, usable or not, in file order. */
    public List<String> ids() {
        return contents.order();
    }

    /** One line per section that is kept but not usable (its type is not loaded). */
    public List<String> warnings() {
        return warnings;
    }

    ConfigContents contents() {
        return contents;
    }

    @Override
    public String toString() {
        return "StorageConfigs[" + file + " (" + origin + "), " + contents.order() + ", digest " + digest() + "]";
    }
}
