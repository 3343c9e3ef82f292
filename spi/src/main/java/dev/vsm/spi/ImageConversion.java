package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One {@code qemu-img convert} of an image into a volume: what the framework needs to build the
 * argv ({@link QemuImg#convert}). How zero runs are written depends on what the target holds
 * before the convert ({@link TargetState}).
 *
 * <p>Made with {@link #builder}, so that it can gain fields without breaking plugins built against
 * an older SPI: {@code ImageConversion.builder(source, "vdi", target, VolumeFormat.RAW).sizeBytes(size).build()}.
 */
public final class ImageConversion {
    private final Path source;
    private final String sourceFormat;
    private final long sizeBytes;
    private final Path target;
    private final VolumeFormat targetFormat;
    private final TargetState targetState;
    private final ImageOptions options;

    private ImageConversion(Builder b) {
        this.source = b.source;
        this.sourceFormat = b.sourceFormat;
        this.sizeBytes = b.sizeBytes;
        this.target = b.target;
        this.targetFormat = b.targetFormat;
        this.targetState = b.targetState;
        this.options = b.options;
    }

    /**
     * A convert of {@code source} (in {@code sourceFormat}, as qemu-img names it) into
     * {@code target} (in {@code targetFormat}); it starts as a {@link TargetState#NEW} target with
     * {@link ImageOptions#DEFAULTS} and an unknown size.
     */
    public static Builder builder(Path source, String sourceFormat, Path target, VolumeFormat targetFormat) {
        return new Builder(source, sourceFormat, target, targetFormat);
    }

    /** The image to read (a file or a block device). */
    public Path source() {
        return source;
    }

    /** Its format ({@code -f}). */
    public String sourceFormat() {
        return sourceFormat;
    }

    /** The source's virtual size, for the progress display (0 when unknown). */
    public long sizeBytes() {
        return sizeBytes;
    }

    /** The volume's file or block device. */
    public Path target() {
        return target;
    }

    /** Its format ({@code -O}). */
    public VolumeFormat targetFormat() {
        return targetFormat;
    }

    /** What the target holds before the convert. */
    public TargetState targetState() {
        return targetState;
    }

    /** The storage's image options (for a {@link TargetState#NEW} target). */
    public ImageOptions options() {
        return options;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ImageConversion that
                && sizeBytes == that.sizeBytes
                && source.equals(that.source)
                && sourceFormat.equals(that.sourceFormat)
                && target.equals(that.target)
                && targetFormat == that.targetFormat
                && targetState == that.targetState
                && options.equals(that.options);
    }

    @Override
    public int hashCode() {
        return Objects.hash(source, sourceFormat, sizeBytes, target, targetFormat, targetState, options);
    }

    @Override
    public String toString() {
        return "ImageConversion[source=" + source + ", sourceFormat=" + sourceFormat + ", sizeBytes=" + sizeBytes
                + ", target=" + target + ", targetFormat=" + targetFormat + ", targetState=" + targetState
                + ", options=" + options + "]";
    }

    /** Builds an {@link ImageConversion}. */
    public static final class Builder {
        private final Path source;
        private final String sourceFormat;
        private final Path target;
        private final VolumeFormat targetFormat;
        private long sizeBytes;
        private TargetState targetState = TargetState.NEW;
        private ImageOptions options = ImageOptions.DEFAULTS;

        private Builder(Path source, String sourceFormat, Path target, VolumeFormat targetFormat) {
            this.source = requireNonNull(source, "source");
            this.sourceFormat = requireNonNull(sourceFormat, "sourceFormat");
            this.target = requireNonNull(target, "target");
            this.targetFormat = requireNonNull(targetFormat, "targetFormat");
        }

        /** The source's virtual size, for the progress display (0 when unknown). */
        public Builder sizeBytes(long bytes) {
            this.sizeBytes = bytes;
            return this;
        }

        /** What the target holds before the convert. */
        public Builder targetState(TargetState state) {
            this.targetState = requireNonNull(state, "targetState");
            return this;
        }

        /** The storage's image options (for a {@link TargetState#NEW} target). */
        public Builder options(ImageOptions imageOptions) {
            this.options = requireNonNull(imageOptions, "options");
            return this;
        }

        public ImageConversion build() {
            return new ImageConversion(this);
        }
    }

    /**
     * What the target holds before the convert. It decides whether runs of zeros may be skipped:
     * skipping them on a target that is not known to read zeros leaves the previous owner's data in
     * place (pve bug #2050).
     */
    public enum TargetState {
        /** The convert creates the target file (with the storage's options): it reads zeros, runs are skipped. */
        NEW,
        /**
         * The target exists and is known to read zeros (a thin volume, a fresh LV on a storage whose
         * removals are zeroed by saferemove): runs are skipped.
         */
        ZEROED,
        /** The target exists and may hold old data (a thick LV): every zero is written. */
        UNKNOWN
    }
}
