package dev.vsm.qemu;

import dev.vsm.spi.ImageConversion;
import dev.vsm.spi.ImageConversion.TargetState;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.ImageOptions;
import dev.vsm.spi.ImageOptions.Subclusters;
import dev.vsm.spi.Preallocation;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Every qemu-img argv and {@code -o} option string vsm runs, built in this one place
 * (docs/configuration.md, "qcow2 and qemu-img"; pve-storage's Common.pm).
 *
 * <p>Subclusters: with {@code qcow2-subclusters: auto} a backed qcow2 (linked clone, overlay)
 * gets {@code extended_l2=on,cluster_size=128k}; with {@code on} every qcow2 gets it; with
 * {@code off} none does. {@code qcow2-cluster-size} overrides the size (at least 16k with
 * subclusters). When the installed qemu-img lacks extended_l2 the caller passes
 * {@code extendedL2Supported = false} and images are made without it.
 */
public final class QemuImgCommands {
    /** The cluster size that goes with subclusters unless configured otherwise (pve's choice). */
    public static final int SUBCLUSTER_DEFAULT_CLUSTER = 128 * 1024;

    private static final int SUBCLUSTER_MIN_CLUSTER = 16 * 1024;
    /**
     * The sparse size vsm gives {@code qemu-img convert} ({@code -S}) where skipping zero runs is
     * safe: runs of zeros at least this long are not written. Chosen from
     * {@code t/bench/sparse-size.sh} (docs/performance.md, "Sparse size"): 64k was the fastest on raw and qcow2
     * targets, for about 7% more allocated space than qemu-img's default 4k.
     */
    public static final String SPARSE_SIZE = "64k";
    /** {@code -S 0}: every zero is written (a target that may hold old data). */
    public static final String NO_SPARSE = "0";

    private final String program;
    private final BooleanSupplier extendedL2Supported;

    public QemuImgCommands(String program, boolean extendedL2Supported) {
        this(program, () -> extendedL2Supported);
    }

    /** @param extendedL2Supported asked only when an image could get subclusters (it may run {@code qemu-img --version}) */
    public QemuImgCommands(String program, BooleanSupplier extendedL2Supported) {
        this.program = program;
        this.extendedL2Supported = extendedL2Supported;
    }

    /** {@code qemu-img create [-o <opts>] -f <fmt> <path> <size>K}. */
    public List<String> create(Path path, VolumeFormat format, long sizeKib, ImageOptions options) {
        List<String> opts = targetOptions(format, options);
        List<String> argv = new ArrayList<>(List.of(program, "create"));
        if (!opts.isEmpty()) {
            argv.add("-o");
            argv.add(String.join(",", opts));
        }
        argv.addAll(List.of("-f", format.id(), path.toString(), sizeKib + "K"));
        return argv;
    }

    /**
     * {@code qemu-img create -F <backing fmt> -b <backing> -f qcow2 <path> [-o <opts>]}: no size,
     * the image takes the backing file's.
     *
     * <p>The preallocation rule is qcow2's, the overlay's own format, whatever the backing file's
     * (pve applies the backing format's rule, so a clone of a raw base gets
     * {@code preallocation=off}): with subclusters, {@code preallocation=metadata} writes the
     * overlay's L2 tables up front and a first 4 KiB write to a cluster only fills a subcluster —
     * 1.6–2.6x the IOPS of the same overlay without it in {@code t/bench/subclusters.sh}, at the
     * same host bytes per guest byte. qemu allows preallocation on a backed image only with
     * extended L2, so without subclusters no preallocation is asked for.
     */
    public List<String> createBacked(Path path, String backing, String backingFormat, ImageOptions options) {
        return createBacked(path, backing, backingFormat, -1, options);
    }

    /**
     * {@code qemu-img create -u -F <backing fmt> -b <backing> -f qcow2 <path> [-o <opts>] <bytes>}:
     * as {@link #createBacked(Path, String, String, ImageOptions)} into a held file, without opening
     * the backing image (which qemu-img would look for beside {@code path}), of the size given.
     * A negative size gives the form without {@code -u} and size.
     */
    public List<String> createBacked(
            Path path, String backing, String backingFormat, long sizeBytes, ImageOptions options) {
        List<String> opts = new ArrayList<>(clusterOptions(options, true));
        Preallocation prealloc = preallocation(VolumeFormat.QCOW2.id(), options, true);
        if (prealloc != null) {
            opts.add("preallocation=" + prealloc.id());
        }
        List<String> argv = new ArrayList<>(List.of(program, "create"));
        if (sizeBytes >= 0) {
            argv.add("-u");
        }
        argv.addAll(List.of("-F", backingFormat, "-b", backing, "-f", VolumeFormat.QCOW2.id(), path.toString()));
        if (!opts.isEmpty()) {
            argv.add("-o");
            argv.add(String.join(",", opts));
        }
        if (sizeBytes >= 0) {
            argv.add(Long.toString(sizeBytes));
        }
        return argv;
    }

    /**
     * The preallocation mode {@link #create} ({@code backed} false) or {@link #createBacked}
     * ({@code backed} true) passes for these options, or null for none. A backed image is a qcow2
     * overlay and takes qcow2's rule whatever {@code format} (its backing file's) is, and gets a
     * mode only with subclusters: qemu refuses preallocation on a backed qcow2 without extended L2.
     */
    public Preallocation preallocation(String format, ImageOptions options, boolean backed) {
        Preallocation mode = backed
                ? PreallocationRules.forFormat(VolumeFormat.QCOW2, options.preallocation())
                : PreallocationRules.forFormat(format, options.preallocation());
        return backed && !usesSubclusters(options, true) ? null : mode;
    }

    /** {@code qemu-img resize [--preallocation=<p>] -f <fmt> <path> <bytes>}. */
    public List<String> resize(Path path, String format, long sizeBytes, ImageOptions options) {
        List<String> argv = new ArrayList<>(List.of(program, "resize"));
        Preallocation prealloc = PreallocationRules.forFormat(format, options.preallocation());
        if (prealloc != null) {
            argv.add("--preallocation=" + prealloc.id());
        }
        argv.addAll(List.of("-f", format, path.toString(), Long.toString(sizeBytes)));
        return argv;
    }

    /**
     * {@code qemu-img commit -f <fmt> <path>}: the image's data goes into its backing image (pve's
     * delete of a chain's oldest snapshot runs {@code qemu-img commit <path>}; the format is given
     * so that it is not probed).
     */
    public List<String> commit(Path path, String format) {
        return List.of(program, "commit", "-f", format, path.toString());
    }

    /**
     * {@code qemu-img rebase -b <backing> -F <backing fmt> -f qcow2 <path>}: a safe rebase (the
     * clusters that differ are copied), with the backing name recorded as given, relative to the
     * image's directory (pve's delete of a chain's middle or newest snapshot).
     */
    public List<String> rebase(Path path, String backing, String backingFormat) {
        return List.of(
                program, "rebase", "-b", backing, "-F", backingFormat, "-f", VolumeFormat.QCOW2.id(), path.toString());
    }

    /**
     * {@code qemu-img rebase -u -b <backing> -F <backing fmt> -f qcow2 <path>}: an unsafe rebase,
     * which only records the new backing name (after a chain's snapshot layer was renamed).
     */
    public List<String> rebaseUnsafe(Path path, String backing, String backingFormat) {
        return List.of(
                program,
                "rebase",
                "-u",
                "-b",
                backing,
                "-F",
                backingFormat,
                "-f",
                VolumeFormat.QCOW2.id(),
                path.toString());
    }

    /**
     * {@code qemu-img snapshot --image-opts -c|-a|-d <name> driver=<fmt>,file.driver=file,file.filename=<path>}:
     * makes, applies or deletes an internal snapshot (pve's {@code volume_snapshot},
     * {@code volume_snapshot_rollback}, {@code volume_snapshot_delete} for qcow2 on file storages,
     * which run {@code qemu-img snapshot -c|-a|-d <name> <path>}). qemu-img snapshot has no
     * {@code -f}: the image options name the format, so that it is not probed.
     */
    public List<String> snapshot(QemuImg.SnapshotAction what, String name, Path path, String format) {
        String action = switch (what) {
            case CREATE -> "-c";
            case APPLY -> "-a";
            case DELETE -> "-d";
        };
        return List.of(
                program,
                "snapshot",
                "--image-opts",
                action,
                name,
                "driver=" + format + ",file.driver=file,file.filename="
                        + path.toString().replace(",", ",,"));
    }

    /** {@code qemu-img info --output=json <path> [-f <fmt>]}. */
    public List<String> info(Path path, String format) {
        List<String> argv = new ArrayList<>(List.of(program, "info", "--output=json", path.toString()));
        if (format != null) {
            argv.add("-f");
            argv.add(format);
        }
        return argv;
    }

    /**
     * {@code qemu-img convert -p ...} by what the target holds ({@link TargetState}):
     * <pre>
     * NEW      convert -p -f &lt;src fmt&gt; -O &lt;fmt&gt; [-o &lt;options&gt;] -S 64k &lt;src&gt; &lt;dst&gt;
     * ZEROED   convert -p -n --target-is-zero -f &lt;src fmt&gt; -O &lt;fmt&gt; -S 64k &lt;src&gt; &lt;dst&gt;
     * UNKNOWN  convert -p -n -f &lt;src fmt&gt; -O &lt;fmt&gt; -S 0 &lt;src&gt; &lt;dst&gt;
     * </pre>
     * A new target gets the options {@link #create} would give it (preallocation, subclusters,
     * cluster size); an existing one has its own.
     */
    public List<String> convert(ImageConversion c) {
        return convert(c, 0);
    }

    /** As {@link #convert(ImageConversion)}, at most {@code bytesPerSecond} fast ({@code -r}; 0: no limit). */
    public List<String> convert(ImageConversion c, long bytesPerSecond) {
        List<String> argv = new ArrayList<>(List.of(program, "convert", "-p"));
        if (bytesPerSecond > 0) {
            argv.add("-r");
            argv.add(Long.toString(bytesPerSecond));
        }
        switch (c.targetState()) {
            case NEW -> {}
            case ZEROED -> argv.addAll(List.of("-n", "--target-is-zero"));
            case UNKNOWN -> argv.add("-n");
        }
        argv.addAll(List.of("-f", c.sourceFormat(), "-O", c.targetFormat().id()));
        if (c.targetState() == TargetState.NEW) {
            List<String> opts = targetOptions(c.targetFormat(), c.options());
            if (!opts.isEmpty()) {
                argv.add("-o");
                argv.add(String.join(",", opts));
            }
        }
        argv.add("-S");
        argv.add(c.targetState() == TargetState.UNKNOWN ? NO_SPARSE : SPARSE_SIZE);
        argv.add(c.source().toString());
        argv.add(c.target().toString());
        return argv;
    }

    /** {@code qemu-img measure --output=json -f <src fmt> -O <fmt> [-o <options>] <src>}: what an image of a source needs. */
    public List<String> measure(Path source, String sourceFormat, VolumeFormat format, ImageOptions options) {
        List<String> argv =
                new ArrayList<>(List.of(program, "measure", "--output=json", "-f", sourceFormat, "-O", format.id()));
        List<String> opts = format == VolumeFormat.QCOW2 ? clusterOptions(options, false) : List.of();
        if (!opts.isEmpty()) {
            argv.add("-o");
            argv.add(String.join(",", opts));
        }
        argv.add(source.toString());
        return argv;
    }

    /**
     * {@code qemu-img measure --output=json --size <KiB>K -O <fmt> [-o <options>]}: what a new image
     * of that size needs (pve's {@code qemu_img_measure}, which sizes a qcow2 LV by its
     * {@code fully-allocated}). {@code backed}: the cluster options an overlay gets.
     */
    public List<String> measureSize(long sizeKib, VolumeFormat format, ImageOptions options, boolean backed) {
        List<String> argv = new ArrayList<>(
                List.of(program, "measure", "--output=json", "--size", sizeKib + "K", "-O", format.id()));
        List<String> opts = format == VolumeFormat.QCOW2 ? clusterOptions(options, backed) : List.of();
        if (!opts.isEmpty()) {
            argv.add("-o");
            argv.add(String.join(",", opts));
        }
        return argv;
    }

    /** {@code qemu-img compare -f <fmt a> -F <fmt b> <a> <b>}: exit 0 when the guest sees the same data in both. */
    public List<String> compare(Path a, String formatA, Path b, String formatB) {
        return List.of(program, "compare", "-f", formatA, "-F", formatB, a.toString(), b.toString());
    }

    /** {@code qemu-img check -f <fmt> <path>}: exit 0 (or 3, leaked clusters only) when the image is consistent. */
    public List<String> check(Path path, String format) {
        return List.of(program, "check", "-f", format, path.toString());
    }

    /** {@code qemu-img check --output=json -f <fmt> <path>}: the image's consistency and its {@code image-end-offset}. */
    public List<String> checkJson(Path path, String format) {
        return List.of(program, "check", "--output=json", "-f", format, path.toString());
    }

    /** The {@code -o} options a new image of {@code format} gets, as {@link #create} gives them. */
    private List<String> targetOptions(VolumeFormat format, ImageOptions options) {
        List<String> opts = new ArrayList<>();
        if (format == VolumeFormat.QCOW2) {
            opts.addAll(clusterOptions(options, false));
        }
        Preallocation prealloc = PreallocationRules.forFormat(format, options.preallocation());
        if (prealloc != null) {
            opts.add("preallocation=" + prealloc.id());
        }
        return opts;
    }

    /**
     * The options that open a qcow2 image with an L2 cache covering all of it
     * ({@link ImageInfo#l2CacheBytes()}), for {@code qemu-img --image-opts} and {@code qemu -drive}:
     * {@code driver=qcow2,file.driver=<file|host_device>,file.filename=<path>,l2-cache-size=<bytes>}.
     * Commas in the path are doubled, as QEMU's option syntax wants. Null for formats without L2
     * tables.
     *
     * @param blockDevice whether the image lives on a block device (an LV) rather than in a file
     */
    public static String imageOpts(Path path, boolean blockDevice, ImageInfo info) {
        Long cache = info.l2CacheBytes();
        if (!info.hasFormat(VolumeFormat.QCOW2) || cache == null) {
            return null;
        }
        return "driver=qcow2,file.driver=" + (blockDevice ? "host_device" : "file") + ",file.filename="
                + path.toString().replace(",", ",,") + ",l2-cache-size=" + cache;
    }

    /** Whether a qcow2 image made with these options gets extended L2 entries. */
    public boolean usesSubclusters(ImageOptions options, boolean backed) {
        boolean wanted =
                options.subclusters() == Subclusters.ON || (options.subclusters() == Subclusters.AUTO && backed);
        return wanted && extendedL2Supported.getAsBoolean();
    }

    private List<String> clusterOptions(ImageOptions options, boolean backed) {
        boolean subclusters = usesSubclusters(options, backed);
        Integer cluster = options.clusterSize();
        if (subclusters) {
            int size = cluster != null ? cluster : SUBCLUSTER_DEFAULT_CLUSTER;
            if (size < SUBCLUSTER_MIN_CLUSTER) {
                throw StorageException.badInput(
                        "qcow2-cluster-size %s is too small for subclusters: use at least 16k or set qcow2-subclusters off",
                        sizeText(size));
            }
            return List.of("extended_l2=on", "cluster_size=" + sizeText(size));
        }
        return cluster == null ? List.of() : List.of("cluster_size=" + sizeText(cluster));
    }

    /** 131072 → {@code 128k}, 2097152 → {@code 2M}, 512 → {@code 512}. */
    static String sizeText(int bytes) {
        if (bytes % (1024 * 1024) == 0) {
            return bytes / (1024 * 1024) + "M";
        }
        if (bytes % 1024 == 0) {
            return bytes / 1024 + "k";
        }
        return Integer.toString(bytes);
    }
}
