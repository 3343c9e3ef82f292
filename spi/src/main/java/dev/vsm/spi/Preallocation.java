package dev.vsm.spi;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * A preallocation mode of a new image (qemu-img's {@code preallocation}, a storage's
 * {@code preallocation} property). Which formats take which modes is the framework's rule
 * ({@link QemuImg#preallocation}); its {@link #id()} is the text in configuration and on
 * qemu-img's command line.
 */
public enum Preallocation {
    OFF,
    METADATA,
    FALLOC,
    FULL;

    /** The name in configuration and on qemu-img's command line: {@code off}, {@code metadata}, {@code falloc}, {@code full}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether the image takes its whole size on disk at once ({@code falloc}, {@code full}). */
    public boolean allocatesWholeSize() {
        return this == FALLOC || this == FULL;
    }

    /** Whether qemu-img writes every byte of the image ({@code full}), which takes time in proportion to its size. */
    public boolean writesEveryByte() {
        return this == FULL;
    }

    /** The mode named {@code id}, if it is one. */
    public static Optional<Preallocation> fromId(String id) {
        return Arrays.stream(values()).filter(p -> p.id().equals(id)).findFirst();
    }

    /** Parses a mode name; bad input naming the valid ones otherwise. */
    public static Preallocation parse(String id) {
        return fromId(id)
                .orElseThrow(() -> StorageException.badInput(
                        "unknown preallocation mode '%s' (use off, metadata, falloc or full)",
                        VolumeId.printable(String.valueOf(id))));
    }

    @Override
    public String toString() {
        return id();
    }
}
