package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * What a guest to import should be created with ({@link Storage#importMetadata}), in the shape of
 * pve's {@code GET /nodes/{node}/storage/{storage}/import-metadata}: {@code type} ({@code vm}),
 * {@code source} (the volume name read), {@code create-args} (the guest configuration's keys and
 * values: {@code name}, {@code cores}, {@code memory}, {@code ostype}, {@code bios}, {@code boot}),
 * {@code disks} (bus and index, such as {@code scsi0}, to the volume each comes from and its
 * size; {@code efidisk0} when the guest needs an EFI disk), {@code net} (network cards by
 * {@code net<n>}) and {@code warnings} (what cannot be carried over, in pve's warning types).
 * {@link #notes()} are the messages pve prints while it reads the descriptor (an item it skips, a
 * name it cannot find); they are no part of pve's answer.
 *
 * <p>Made with {@link #builder}; maps are sorted by key, as pve's JSON output is.
 */
public final class ImportMetadata {
    private final String type;
    private final String source;
    private final Map<String, String> createArgs;
    private final Map<String, Disk> disks;
    private final boolean efiDisk;
    private final Map<String, Map<String, String>> net;
    private final List<Warning> warnings;
    private final List<String> notes;

    private ImportMetadata(Builder b) {
        this.type = b.type;
        this.source = b.source;
        this.createArgs = Collections.unmodifiableMap(new TreeMap<>(b.createArgs));
        this.disks = Collections.unmodifiableMap(new TreeMap<>(b.disks));
        this.efiDisk = b.efiDisk;
        Map<String, Map<String, String>> cards = new TreeMap<>();
        b.net.forEach((k, v) -> cards.put(k, Collections.unmodifiableMap(new TreeMap<>(v))));
        this.net = Collections.unmodifiableMap(cards);
        this.warnings = List.copyOf(b.warnings);
        this.notes = List.copyOf(b.notes);
    }

    /** A builder for a guest of type {@code vm} read from the volume {@code source} (its volume name). */
    public static Builder builder(String source) {
        return new Builder(source);
    }

    /** A builder holding this metadata, to change a part of it. */
    public Builder toBuilder() {
        Builder b = new Builder(source);
        b.type = type;
        b.createArgs.putAll(createArgs);
        b.disks.putAll(disks);
        b.efiDisk = efiDisk;
        net.forEach((k, v) -> b.net.put(k, new TreeMap<>(v)));
        b.warnings.addAll(warnings);
        b.notes.addAll(notes);
        return b;
    }

    /** The kind of guest: {@code vm}. */
    public String type() {
        return type;
    }

    /** The volume name the metadata was read from ({@code import/<x>.ovf}). */
    public String source() {
        return source;
    }

    /** The guest configuration's keys and values, sorted by key. */
    public Map<String, String> createArgs() {
        return createArgs;
    }

    /** The disks by bus and index ({@code scsi0}), sorted; {@code efidisk0} is {@link #efiDisk()}. */
    public Map<String, Disk> disks() {
        return disks;
    }

    /** Whether the guest needs an EFI disk (pve's {@code "efidisk0": 1} among the disks). */
    public boolean efiDisk() {
        return efiDisk;
    }

    /** The network cards by {@code net<n>}, each as its keys and values ({@code model}). */
    public Map<String, Map<String, String>> net() {
        return net;
    }

    /** What the import cannot carry over, in pve's warning types. */
    public List<Warning> warnings() {
        return warnings;
    }

    /** Messages about the descriptor itself (an item skipped, a missing name), in the order found. */
    public List<String> notes() {
        return notes;
    }

    @Override
    public boolean equals(Object o) {
        return o == this
                || o instanceof ImportMetadata that
                        && type.equals(that.type)
                        && source.equals(that.source)
                        && createArgs.equals(that.createArgs)
                        && disks.equals(that.disks)
                        && efiDisk == that.efiDisk
                        && net.equals(that.net)
                        && warnings.equals(that.warnings)
                        && notes.equals(that.notes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, source, createArgs, disks, efiDisk, net, warnings, notes);
    }

    @Override
    public String toString() {
        return "ImportMetadata[type=" + type + ", source=" + source + ", createArgs=" + createArgs + ", disks=" + disks
                + ", efiDisk=" + efiDisk + ", net=" + net + ", warnings=" + warnings + "]";
    }

    /** Builds an {@link ImportMetadata}. */
    public static final class Builder {
        private String type = "vm";
        private final String source;
        private final Map<String, String> createArgs = new TreeMap<>();
        private final Map<String, Disk> disks = new TreeMap<>();
        private boolean efiDisk;
        private final Map<String, Map<String, String>> net = new TreeMap<>();
        private final List<Warning> warnings = new ArrayList<>();
        private final List<String> notes = new ArrayList<>();

        private Builder(String source) {
            this.source = requireNonNull(source, "source");
        }

        /** One key of the guest configuration. */
        public Builder createArg(String key, String value) {
            createArgs.put(requireNonNull(key, "key"), requireNonNull(value, "value"));
            return this;
        }

        /** A disk at {@code key} ({@code scsi0}); a second disk at the same key replaces the first, as in pve. */
        public Builder disk(String key, Disk disk) {
            disks.put(requireNonNull(key, "key"), requireNonNull(disk, "disk"));
            return this;
        }

        public Builder efiDisk(boolean value) {
            this.efiDisk = value;
            return this;
        }

        /** A network card {@code net<n>} with its keys and values. */
        public Builder net(String key, Map<String, String> card) {
            net.put(requireNonNull(key, "key"), new TreeMap<>(card));
            return this;
        }

        public Builder warning(Warning warning) {
            warnings.add(requireNonNull(warning, "warning"));
            return this;
        }

        public Builder note(String note) {
            notes.add(requireNonNull(note, "note"));
            return this;
        }

        public ImportMetadata build() {
            return new ImportMetadata(this);
        }
    }

    /** A disk to import: the volume its data comes from, and its size in bytes when known. */
    public static final class Disk {
        private final VolumeId volid;
        private final Long size;

        private Disk(VolumeId volid, Long size) {
            this.volid = requireNonNull(volid, "volid");
            this.size = size;
        }

        /** A disk whose size is {@code size} bytes, or unknown when null. */
        public static Disk of(VolumeId volid, Long size) {
            return new Disk(volid, size);
        }

        public VolumeId volid() {
            return volid;
        }

        /** Its virtual size in bytes: the image's own for an OVF's file, the descriptor's capacity in an OVA. */
        public OptionalLong size() {
            return size == null ? OptionalLong.empty() : OptionalLong.of(size);
        }

        /** This disk with another size. */
        public Disk withSize(long bytes) {
            return new Disk(volid, bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o == this || o instanceof Disk that && volid.equals(that.volid) && Objects.equals(size, that.size);
        }

        @Override
        public int hashCode() {
            return Objects.hash(volid, size);
        }

        @Override
        public String toString() {
            return "Disk[volid=" + volid + ", size=" + size + "]";
        }
    }

    /**
     * A known issue of the import, as pve names it: {@code type} ({@code ova-needs-extracting},
     * {@code efi-state-lost}, ...) and, when it concerns one, the configuration key and value.
     */
    public static final class Warning {
        private final String type;
        private final String key;
        private final String value;

        private Warning(String type, String key, String value) {
            this.type = requireNonNull(type, "type");
            this.key = key;
            this.value = value;
        }

        public static Warning of(String type) {
            return new Warning(type, null, null);
        }

        public static Warning of(String type, String key, String value) {
            return new Warning(type, requireNonNull(key, "key"), requireNonNull(value, "value"));
        }

        public String type() {
            return type;
        }

        /** The configuration key it concerns, or null. */
        public String key() {
            return key;
        }

        /** The configuration value it concerns, or null. */
        public String value() {
            return value;
        }

        @Override
        public boolean equals(Object o) {
            return o == this
                    || o instanceof Warning that
                            && type.equals(that.type)
                            && Objects.equals(key, that.key)
                            && Objects.equals(value, that.value);
        }

        @Override
        public int hashCode() {
            return Objects.hash(type, key, value);
        }

        @Override
        public String toString() {
            return "Warning[type=" + type + ", key=" + key + ", value=" + value + "]";
        }
    }
}
