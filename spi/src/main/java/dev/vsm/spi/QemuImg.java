package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Disk images, as the framework makes, changes and reads them with qemu-img. How each is done
 * (command lines, options) is the framework's, from the {@link ImageOptions} a storage hands over,
 * so that the rules of preallocation per format and of qcow2 subclusters live in one place. Every
 * method fails with a {@link StorageException}; under {@code --dry-run} a changing one prints what
 * it would run and changes nothing.
 */
public interface QemuImg {
    /**
     * Makes a new image of {@code sizeKib} KiB. Fails with {@link StorageException.Kind#BAD_INPUT}
     * before anything is made if the preallocation mode does not suit the format.
     */
    void create(Path path, VolumeFormat format, long sizeKib, ImageOptions options);

    /**
     * Makes a qcow2 image backed by another image, whose name {@code backing} is recorded as
     * given: a relative one resolves from {@code path}'s directory, as qemu resolves it. The
     * preallocation rule is that of the backing image's format (pve's clone rule).
     */
    void createBacked(Path path, String backing, String backingFormat, ImageOptions options);

    /**
     * As {@link #createBacked(Path, String, String, ImageOptions)}, into a file that is not reached by
     * the image's name ({@link HeldFile#path()}, the file vsm created and holds open): qemu-img could
     * not resolve a relative {@code backing} from there, so it does not open the backing image
     * ({@code -u}) and the overlay gets {@code sizeBytes}, the backing image's virtual size. The
     * name is recorded as given.
     */
    default void createBacked(Path path, String backing, String backingFormat, long sizeBytes, ImageOptions options) {
        throw StorageException.failed("qemu-img create of a held file is not available here ('%s')", path);
    }

    /**
     * The preallocation mode {@link #create} ({@code backed} false) or {@link #createBacked}
     * ({@code backed} true: a qcow2 overlay, which takes qcow2's rule whatever {@code format}, its
     * backing image's, is) would use with these options, or null for none; {@link Preallocation#allocatesWholeSize()} says whether the image
     * takes its whole size on disk at once. Fails as {@link #create} does when the mode does not
     * suit the format.
     */
    Preallocation preallocation(String format, ImageOptions options, boolean backed);

    /** What {@link #snapshot} does to an internal snapshot. */
    enum SnapshotAction {
        /** Takes a snapshot. */
        CREATE,
        /** The image goes back to the snapshot's state. */
        APPLY,
        /** Deletes the snapshot. */
        DELETE
    }

    /** Creates, applies or deletes an internal snapshot of a qcow2 image. */
    void snapshot(Path path, String format, SnapshotAction action, String name);

    /** The names of an image's internal snapshots, oldest first. */
    List<String> snapshots(Path path, String format);

    /**
     * Writes what a qcow2 image holds into its backing image, which then sees the same data
     * (qemu-img's {@code commit}); the image itself keeps its backing name. A volume chain deletes
     * its oldest snapshot this way. Fails with {@link StorageException} where the implementation
     * has no qemu-img behind it.
     */
    default void commit(Path path, String format) {
        throw StorageException.failed("qemu-img commit is not available here ('%s')", path);
    }

    /**
     * Gives a qcow2 image another backing image, copying what differs so that its data stays the
     * same (qemu-img's safe {@code rebase}). {@code backing} is recorded as given: a relative name
     * resolves from {@code path}'s directory. A volume chain deletes a snapshot that has a parent
     * this way.
     */
    default void rebase(Path path, String backing, String backingFormat) {
        throw StorageException.failed("qemu-img rebase is not available here ('%s')", path);
    }

    /**
     * Records {@code backing} as a qcow2 image's backing name without reading or copying any data
     * (qemu-img's unsafe {@code rebase -u}): right only when the new backing image holds what the
     * old one held, as after a snapshot's layer was renamed. {@code backing} need not exist yet.
     */
    default void rebaseUnsafe(Path path, String backing, String backingFormat) {
        throw StorageException.failed("qemu-img rebase is not available here ('%s')", path);
    }

    /**
     * The offset just past the last cluster a qcow2 image uses (qemu-img check's
     * {@code image-end-offset}): what of a block device the image needs, read from its refcounts.
     * Fails when qemu-img finds the image corrupt, and where the implementation has no qemu-img
     * behind it.
     */
    default long imageEnd(Path path, String format) {
        throw StorageException.failed("qemu-img check is not available here ('%s')", path);
    }

    /**
     * The internal snapshots of an image with their creation times in seconds since the epoch
     * (qemu-img's {@code date-sec}), oldest first. The default has the names of {@link #snapshots}
     * and no times (null).
     */
    default java.util.Map<String, Long> snapshotTimes(Path path, String format) {
        java.util.Map<String, Long> times = new java.util.LinkedHashMap<>();
        for (String name : snapshots(path, format)) {
            times.put(name, null);
        }
        return times;
    }

    /** Grows or shrinks an image to {@code sizeBytes}, preallocating as the options say. */
    void resize(Path path, String format, long sizeBytes, ImageOptions options);

    /** What an image says about itself (qemu-img's {@code info}); format may be null to probe it. */
    ImageInfo info(Path path, String format);

    /**
     * Copies an image into a volume, showing progress on the context's console. Whether runs of
     * zeros are skipped follows from {@link ImageConversion#targetState()}.
     *
     * @throws InterruptedCommandException when vsm was stopped (Ctrl-C, SIGTERM) during the convert
     */
    void convert(ImageConversion conversion);

    /**
     * The bytes an image of {@code targetFormat} holding {@code source} needs (qemu-img's
     * {@code measure}), to size a volume that cannot grow (an LV).
     */
    long measure(Path source, String sourceFormat, VolumeFormat targetFormat, ImageOptions options);

    /**
     * The bytes a new, empty image of {@code sizeKib} KiB and {@code format} takes when every
     * cluster is written, its metadata included ({@code qemu-img measure --size}'s
     * {@code fully-allocated}), to size an LV that holds a qcow2 image. {@code backed}: measured
     * with the options an overlay gets ({@code extended_l2=on,cluster_size=128k}). Fails with
     * {@link StorageException} where the implementation has no qemu-img behind it.
     */
    default long measureNew(long sizeKib, VolumeFormat format, ImageOptions options, boolean backed) {
        throw StorageException.failed("qemu-img measure is not available here");
    }

    /**
     * The KiB a volume of {@code targetFormat} needs to hold {@code source}, for a volume that
     * cannot grow (an LV): the virtual size for raw, {@link #measure}'s figure for other formats
     * (qcow2's metadata on top of the data); rounded up to whole KiB.
     */
    long volumeSizeKib(SourceImage source, VolumeFormat targetFormat, ImageOptions options);

    /**
     * {@link #info} for many images, each answered on its own: one image's error does not keep
     * the others from being read. The framework reads qcow2 headers and raw sizes itself where it
     * can, so listing a storage does not cost a process per image.
     */
    default List<Inspection> inspect(List<ImageFile> images) {
        List<Inspection> found = new ArrayList<>();
        for (ImageFile image : images) {
            try {
                found.add(Inspection.of(image.path(), info(image.path(), image.format())));
            } catch (StorageException e) {
                found.add(Inspection.failed(image.path(), e));
            }
        }
        return found;
    }

    /** An image file and the format it should be in (null: probe it). */
    final class ImageFile {
        private final Path path;
        private final String format;

        public ImageFile(Path path, String format) {
            requireNonNull(path, "path");
            this.path = path;
            this.format = format;
        }

        public Path path() {
            return path;
        }

        public String format() {
            return format;
        }

        @Override
        public boolean equals(Object o) {
            return o == this
                    || o instanceof ImageFile that
                            && Objects.equals(path, that.path)
                            && Objects.equals(format, that.format);
        }

        @Override
        public int hashCode() {
            return Objects.hash(path, format);
        }

        @Override
        public String toString() {
            return "ImageFile[path=" + path + ", format=" + format + "]";
        }
    }

    /**
     * What one image says about itself, or why it could not be read: exactly one of {@code info}
     * and {@code error} is set.
     */
    final class Inspection {
        private final Path path;
        private final ImageInfo info;
        private final StorageException error;

        public Inspection(Path path, ImageInfo info, StorageException error) {
            requireNonNull(path, "path");
            if ((info == null) == (error == null)) {
                throw new IllegalArgumentException("exactly one of info and error");
            }
            this.path = path;
            this.info = info;
            this.error = error;
        }

        public static Inspection of(Path path, ImageInfo info) {
            return new Inspection(path, requireNonNull(info, "info"), null);
        }

        public static Inspection failed(Path path, StorageException error) {
            return new Inspection(path, null, requireNonNull(error, "error"));
        }

        /** The info, or the error thrown. */
        public ImageInfo orThrow() {
            if (error != null) {
                throw error;
            }
            return info;
        }

        public Path path() {
            return path;
        }

        public ImageInfo info() {
            return info;
        }

        public StorageException error() {
            return error;
        }

        @Override
        public boolean equals(Object o) {
            return o == this
                    || o instanceof Inspection that
                            && Objects.equals(path, that.path)
                            && Objects.equals(info, that.info)
                            && Objects.equals(error, that.error);
        }

        @Override
        public int hashCode() {
            return Objects.hash(path, info, error);
        }

        @Override
        public String toString() {
            return "Inspection[path=" + path + ", info=" + info + ", error=" + error + "]";
        }
    }
}
