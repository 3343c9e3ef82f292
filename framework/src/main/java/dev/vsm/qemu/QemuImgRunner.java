package dev.vsm.qemu;

import static java.util.Objects.requireNonNull;

import dev.vsm.env.Environment;
import dev.vsm.exec.ProcessCommandRunner;
import dev.vsm.json.JsonTree;
import dev.vsm.progress.ProgressMeter;
import dev.vsm.progress.ProgressOutput;
import dev.vsm.spi.Command;
import dev.vsm.spi.CommandRunner;
import dev.vsm.spi.Console;
import dev.vsm.spi.ImageConversion;
import dev.vsm.spi.ImageInfo;
import dev.vsm.spi.ImageOptions;
import dev.vsm.spi.Preallocation;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.SourceImage;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.trust.FileTrust;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link QemuImg} on the installed qemu-img ({@code $VSM_QEMU_IMG}, else {@code qemu-img} on
 * the PATH). Argv come from {@link QemuImgCommands}; this class runs them and reads the answers.
 *
 * <p>{@link #info} and {@link #inspect} read qcow2 headers and raw file sizes in Java
 * ({@link NativeImageReader}) and the allocated sizes and change times with one {@code stat} for
 * all images ({@link BatchStat}, run while the headers are read); qemu-img answers for other
 * formats and for headers the reader does not trust. {@code VSM_IMAGE_INFO=qemu-img} makes every
 * answer come from {@code qemu-img info}, one process per image as pve does.
 */
public final class QemuImgRunner implements QemuImg {
    private static final Logger LOG = LoggerFactory.getLogger(QemuImgRunner.class);
    /** qemu-img's qcow2 cluster size when none is given and there are no subclusters. */
    private static final int QCOW2_DEFAULT_CLUSTER = 64 * 1024;

    private static final Duration INFO_TIMEOUT = Duration.ofSeconds(30);
    private static final long BASE_TIMEOUT_SECONDS = 600;
    private static final long FULL_BYTES_PER_SECOND_MIB = 20;
    private static final Pattern VERSION = Pattern.compile("qemu-img version (\\d+)\\.(\\d+)");

    private final String program;
    private final CommandRunner commands;
    private final Console console;
    private final QemuImgCommands argv;
    /** Runs a convert line by line for its progress, and the commands whose exit status is the answer (compare, check). */
    private final ProcessCommandRunner streaming;

    private final ProgressOutput progress;
    private final NativeImageReader reader;
    private final BatchStat batchStat;
    private final String timeoutOverride;
    private volatile long convertRate;
    private Boolean extendedL2;

    /**
     * How the runner is set up from the environment.
     *
     * @param program         the qemu-img to run ({@code $VSM_QEMU_IMG}, else {@code qemu-img} on the PATH)
     * @param readHeaders     whether to read qcow2 headers and raw sizes in Java; false
     *                        ({@code VSM_IMAGE_INFO=qemu-img}): {@code qemu-img info} for every image, as pve does
     * @param timeoutOverride {@code $VSM_QEMU_IMG_TIMEOUT}, or null ({@link #changeTimeout(Preallocation, long, String)})
     */
    public record Settings(String program, boolean readHeaders, String timeoutOverride) {
        public Settings {
            requireNonNull(program, "program");
        }

        /**
         * As root, a {@code $VSM_QEMU_IMG} that names a path must pass {@link FileTrust}'s rule (a
         * bare name is looked up on the PATH, as {@code qemu-img} and every other tool vsm runs).
         */
        public static Settings from(Environment env) {
            String program = env.get("VSM_QEMU_IMG");
            if (program != null && program.contains("/")) {
                FileTrust.requireTrustedAsRoot(
                        Path.of(program), "$VSM_QEMU_IMG '" + program + "'", "or unset VSM_QEMU_IMG");
            }
            return new Settings(
                    program != null ? program : "qemu-img",
                    !"qemu-img".equals(env.get("VSM_IMAGE_INFO")),
                    env.get("VSM_QEMU_IMG_TIMEOUT"));
        }
    }

    /** @param progress where converts show their progress */
    public QemuImgRunner(ProcessCommandRunner commands, Console console, ProgressOutput progress, Settings settings) {
        this(commands, commands, console, progress, settings);
    }

    /** With {@code queries} for the commands whose output is the answer (tests record them this way). */
    QemuImgRunner(
            CommandRunner queries,
            ProcessCommandRunner streaming,
            Console console,
            ProgressOutput progress,
            Settings settings) {
        this.program = settings.program();
        this.commands = requireNonNull(queries, "queries");
        this.console = requireNonNull(console, "console");
        this.streaming = requireNonNull(streaming, "streaming");
        this.progress = requireNonNull(progress, "progress");
        this.argv = new QemuImgCommands(program, this::extendedL2Supported);
        this.reader = settings.readHeaders() ? new NativeImageReader() : null;
        this.batchStat = new BatchStat(queries);
        this.timeoutOverride = settings.timeoutOverride();
    }

    /** The argv builder. */
    public QemuImgCommands commands() {
        return argv;
    }

    /** Whether this qemu-img knows extended_l2 (QEMU 5.2+), probed once, when first needed. */
    private synchronized boolean extendedL2Supported() {
        if (extendedL2 == null) {
            extendedL2 = probeExtendedL2();
        }
        return extendedL2;
    }

    private boolean probeExtendedL2() {
        String out;
        try {
            out = commands.query(Command.of(program, "--version").withTimeout(INFO_TIMEOUT))
                    .stdout();
        } catch (StorageException e) {
            throw StorageException.failed("qemu-img is not usable (%s): install qemu-utils", e.getMessage());
        }
        Matcher m = VERSION.matcher(out);
        if (m.find()) {
            int major = Integer.parseInt(m.group(1));
            int minor = Integer.parseInt(m.group(2));
            if (major > 5 || (major == 5 && minor >= 2)) {
                return true;
            }
            console.warn(String.format(
                    "qemu-img %d.%d does not support extended_l2 (QEMU 5.2+): qcow2 images are made without subclusters",
                    major, minor));
            return false;
        }
        console.warn("cannot tell the qemu-img version: assuming it supports extended_l2");
        return true;
    }

    @Override
    public void create(Path path, VolumeFormat format, long sizeKib, ImageOptions options) {
        List<String> cmd = commands().create(path, format, sizeKib, options);
        boolean extendedL2 = format == VolumeFormat.QCOW2 && commands().usesSubclusters(options, false);
        int cluster = options.clusterSize() != null
                ? options.clusterSize()
                : extendedL2 ? QemuImgCommands.SUBCLUSTER_DEFAULT_CLUSTER : QCOW2_DEFAULT_CLUSTER;
        ImageSizeLimits.check(path, format.id(), Math.multiplyExact(sizeKib, 1024L), cluster, extendedL2);
        commands.run(limited(
                        Command.of(cmd),
                        changeTimeout(PreallocationRules.forFormat(format, options.preallocation()), sizeKib * 1024))
                .withErrorPrefix("unable to create image"));
    }

    @Override
    public void createBacked(Path path, String backing, String backingFormat, ImageOptions options) {
        List<String> cmd = commands().createBacked(path, backing, backingFormat, options);
        Preallocation mode = commands().preallocation(backingFormat, options, true);
        commands.run(limited(Command.of(cmd).inDirectory(path.getParent()), changeTimeout(mode, 0))
                .withErrorPrefix("unable to create image"));
    }

    @Override
    public void createBacked(Path path, String backing, String backingFormat, long sizeBytes, ImageOptions options) {
        List<String> cmd = commands().createBacked(path, backing, backingFormat, sizeBytes, options);
        Preallocation mode = commands().preallocation(backingFormat, options, true);
        commands.run(limited(Command.of(cmd), changeTimeout(mode, 0)).withErrorPrefix("unable to create image"));
    }

    @Override
    public Preallocation preallocation(String format, ImageOptions options, boolean backed) {
        return commands().preallocation(format, options, backed);
    }

    @Override
    public void resize(Path path, String format, long sizeBytes, ImageOptions options) {
        List<String> cmd = commands().resize(path, format, sizeBytes, options);
        int cluster = QCOW2_DEFAULT_CLUSTER;
        boolean extendedL2 = false;
        if (VolumeFormat.QCOW2.is(format)) {
            try {
                Qcow2Header header = Qcow2Header.read(path);
                cluster = header.clusterSize();
                extendedL2 = header.extendedL2();
            } catch (IOException | Qcow2Header.InvalidHeaderException e) {
                // qemu-img resize will say what is wrong with it
            }
        }
        ImageSizeLimits.check(path, format, sizeBytes, cluster, extendedL2);
        commands.run(limited(
                        Command.of(cmd),
                        changeTimeout(PreallocationRules.forFormat(format, options.preallocation()), sizeBytes))
                .withErrorPrefix("unable to resize image '" + path + "'"));
    }

    private static Command limited(Command command, Duration timeout) {
        return timeout == null ? command : command.withTimeout(timeout);
    }

    /**
     * The watchdog of a qemu-img command that writes (create, resize; convert as if
     * {@code preallocation=full}) with preallocation {@code mode} (null: none):
     * {@code $VSM_QEMU_IMG_TIMEOUT} seconds when set (0: no limit), else
     * {@value #BASE_TIMEOUT_SECONDS} s, plus for a mode that writes every byte
     * ({@link Preallocation#writesEveryByte()}) one second per {@value #FULL_BYTES_PER_SECOND_MIB}
     * MiB of the image.
     * A hung qemu-img (a dead NFS server, a stuck device) is then stopped and reported
     * ({@code got timeout}) instead of holding the storage lock forever.
     */
    private Duration changeTimeout(Preallocation mode, long sizeBytes) {
        return changeTimeout(mode, sizeBytes, timeoutOverride);
    }

    /** The watchdog of {@code qemu-img convert}, which writes every byte: as {@code preallocation=full}. */
    private Duration copyTimeout(long sizeBytes) {
        return changeTimeout(Preallocation.FULL, sizeBytes);
    }

    static Duration changeTimeout(Preallocation mode, long sizeBytes, String override) {
        if (override != null && !override.isBlank()) {
            long seconds;
            try {
                seconds = Long.parseLong(override.strip());
            } catch (NumberFormatException e) {
                throw StorageException.badInput(
                        "VSM_QEMU_IMG_TIMEOUT must be a number of seconds (0: no limit), not '%s'", override);
            }
            if (seconds < 0) {
                throw StorageException.badInput(
                        "VSM_QEMU_IMG_TIMEOUT must be a number of seconds (0: no limit), not '%s'", override);
            }
            return seconds == 0 ? null : Duration.ofSeconds(seconds);
        }
        long seconds = BASE_TIMEOUT_SECONDS;
        if (mode != null && mode.writesEveryByte()) {
            seconds += sizeBytes / (FULL_BYTES_PER_SECOND_MIB * 1024L * 1024L);
        }
        return Duration.ofSeconds(seconds);
    }

    @Override
    public ImageInfo info(Path path, String format) {
        return inspect(List.of(new ImageFile(path, format))).get(0).orThrow();
    }

    @Override
    public List<Inspection> inspect(List<ImageFile> images) {
        // the stat process runs while the headers are read, on every core (each read is a few
        // system calls and some cold code); it stats every file the reader may read
        BatchStat.Pending stats = reader == null
                ? null
                : batchStat.start(images.stream()
                        .filter(i -> VolumeFormat.QCOW2.is(i.format()) || VolumeFormat.RAW.is(i.format()))
                        .map(ImageFile::path)
                        .toList());
        List<NativeImageReader.Outcome> outcomes = (images.size() > 1 ? images.parallelStream() : images.stream())
                .map(image -> reader == null
                        ? new NativeImageReader.Fallback("VSM_IMAGE_INFO=qemu-img")
                        : reader.read(image.path(), image.format()))
                .toList();
        Map<Path, BatchStat.Entry> stat = stats == null ? Map.of() : stats.join();
        List<Inspection> found = new ArrayList<>();
        for (int i = 0; i < images.size(); i++) {
            ImageFile image = images.get(i);
            NativeImageReader.Outcome o = outcomes.get(i);
            if (o instanceof NativeImageReader.Read r) {
                BatchStat.Entry s = stat.get(image.path());
                found.add(
                        s == null
                                ? Inspection.failed(
                                        image.path(), StorageException.failed("failed to stat '%s'", image.path()))
                                : Inspection.of(
                                        image.path(),
                                        ImageInfo.builder(r.format())
                                                .virtualSize(r.virtualSize())
                                                .actualSize(s.allocated())
                                                .backingFile(r.backingFile())
                                                .backingFormat(r.backingFormat())
                                                .clusterSize(r.clusterSize())
                                                .extendedL2(r.extendedL2())
                                                .ctime(s.ctime())
                                                .build()));
            } else if (o instanceof NativeImageReader.Failed f) {
                found.add(Inspection.failed(image.path(), f.error()));
            } else {
                if (LOG.isDebugEnabled()) {
                    LOG.debug("qemu-img info for {}: {}", image.path(), ((NativeImageReader.Fallback) o).reason());
                }
                try {
                    found.add(Inspection.of(image.path(), qemuImgInfo(image.path(), image.format())));
                } catch (StorageException e) {
                    found.add(Inspection.failed(image.path(), e));
                }
            }
        }
        return found;
    }

    @Override
    public void snapshot(Path path, String format, SnapshotAction action, String name) {
        String what = switch (action) {
            case CREATE -> "unable to create snapshot '" + name + "' of '" + path + "'";
            case APPLY -> "unable to roll back '" + path + "' to snapshot '" + name + "'";
            case DELETE -> "unable to delete snapshot '" + name + "' of '" + path + "'";
        };
        commands.run(Command.of(commands().snapshot(action, name, path, format))
                .withTimeout(Duration.ofSeconds(BASE_TIMEOUT_SECONDS))
                .withErrorPrefix(what));
    }

    /**
     * Unlimited in time unless {@code $VSM_QEMU_IMG_TIMEOUT} says otherwise: a commit or rebase
     * copies what was written, however much that is (pve sets no limit either).
     */
    @Override
    public void commit(Path path, String format) {
        commands.run(limited(Command.of(commands().commit(path, format)), mergeTimeout())
                .withErrorPrefix("unable to commit '" + path + "' into its backing image"));
    }

    @Override
    public void rebase(Path path, String backing, String backingFormat) {
        commands.run(limited(
                        Command.of(commands().rebase(path, backing, backingFormat))
                                .inDirectory(path.getParent()),
                        mergeTimeout())
                .withErrorPrefix("unable to rebase '" + path + "' on '" + backing + "'"));
    }

    @Override
    public void rebaseUnsafe(Path path, String backing, String backingFormat) {
        commands.run(Command.of(commands().rebaseUnsafe(path, backing, backingFormat))
                .inDirectory(path.getParent())
                .withTimeout(Duration.ofSeconds(BASE_TIMEOUT_SECONDS))
                .withErrorPrefix("unable to rebase '" + path + "' on '" + backing + "'"));
    }

    /** The watchdog of a commit or rebase: {@code $VSM_QEMU_IMG_TIMEOUT} when set, else none. */
    private Duration mergeTimeout() {
        return timeoutOverride == null || timeoutOverride.isBlank() ? null : changeTimeout(null, 0);
    }

    @Override
    public List<String> snapshots(Path path, String format) {
        return new ArrayList<>(snapshotTimes(path, format).keySet());
    }

    @Override
    public java.util.Map<String, Long> snapshotTimes(Path path, String format) {
        CommandRunner.Result r = commands.query(Command.of(commands().info(path, format))
                .withTimeout(INFO_TIMEOUT)
                .withErrorPrefix("qemu-img info '" + path + "' failed"));
        java.util.Map<String, Long> times = new java.util.LinkedHashMap<>();
        try {
            for (JsonTree snapshot :
                    JsonTree.parse(r.stdout()).path("snapshots").elements()) {
                JsonTree date = snapshot.path("date-sec");
                times.put(snapshot.path("name").text(""), date.isMissing() ? null : Long.valueOf(date.asLong(0)));
            }
        } catch (java.io.IOException e) {
            throw StorageException.failed(e, "qemu-img info '%s': unreadable output - %s", path, e.getMessage());
        }
        return times;
    }

    /** One {@code qemu-img info} process. */
    private ImageInfo qemuImgInfo(Path path, String format) {
        CommandRunner.Result r = commands.query(Command.of(commands().info(path, format))
                .withTimeout(INFO_TIMEOUT)
                .withErrorPrefix("qemu-img info '" + path + "' failed"));
        return parseInfo(r.stdout(), ctime(path));
    }

    /**
     * Every later {@code qemu-img convert} of this runner at most {@code bytesPerSecond} fast
     * ({@code -r}, as a storage's or the command's bandwidth limit asks; 0: no limit), its watchdog
     * lengthened by the time the limit alone takes.
     */
    public void limitConverts(long bytesPerSecond) {
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("bytesPerSecond " + bytesPerSecond);
        }
        this.convertRate = bytesPerSecond;
    }

    @Override
    public void convert(ImageConversion conversion) {
        long rate = convertRate;
        List<String> argv = commands().convert(conversion, rate);
        Duration timeout = copyTimeout(conversion.sizeBytes());
        if (timeout != null && rate > 0) {
            timeout = timeout.plusSeconds(conversion.sizeBytes() / rate);
        }
        Command cmd = limited(Command.of(argv), timeout)
                .withErrorPrefix("unable to convert '" + conversion.source() + "' to '" + conversion.target() + "'");
        ProgressMeter meter =
                ProgressMeter.start("convert " + conversion.source().getFileName(), conversion.sizeBytes(), progress);
        try {
            streaming.stream(
                    cmd,
                    (channel, line) -> QemuImgProgress.percent(line)
                            .ifPresent(p -> meter.advanceTo(QemuImgProgress.bytesDone(p, conversion.sizeBytes()))));
        } catch (RuntimeException e) {
            meter.abandon();
            throw e;
        }
        if (!streaming.dryRun()) {
            meter.advanceTo(conversion.sizeBytes());
            meter.finish();
        }
    }

    @Override
    public long volumeSizeKib(SourceImage source, VolumeFormat targetFormat, ImageOptions options) {
        long bytes = targetFormat == VolumeFormat.RAW
                ? source.virtualSize()
                : measure(source.path(), source.format(), targetFormat, options);
        return Math.max(1, (bytes + 1023) / 1024);
    }

    @Override
    public long measure(Path source, String sourceFormat, VolumeFormat targetFormat, ImageOptions options) {
        CommandRunner.Result r =
                commands.query(Command.of(commands().measure(source, sourceFormat, targetFormat, options))
                        .withTimeout(INFO_TIMEOUT)
                        .withErrorPrefix("qemu-img measure '" + source + "' failed"));
        try {
            JsonTree n = JsonTree.parse(r.stdout());
            if (!n.has("required")) {
                throw StorageException.failed("qemu-img measure '%s' returned no 'required' size", source);
            }
            return n.path("required").asLong(0);
        } catch (IOException e) {
            throw StorageException.failed("qemu-img measure returned invalid JSON: %s", e.getMessage());
        }
    }

    @Override
    public long measureNew(long sizeKib, VolumeFormat format, ImageOptions options, boolean backed) {
        CommandRunner.Result r = commands.query(Command.of(commands().measureSize(sizeKib, format, options, backed))
                .withTimeout(INFO_TIMEOUT)
                .withErrorPrefix("failed to query file information with qemu-img measure"));
        try {
            JsonTree n = JsonTree.parse(r.stdout());
            long full = n.path("fully-allocated").asLong(0);
            if (full <= 0) {
                throw StorageException.failed("Missing fully-allocated value from json");
            }
            return full;
        } catch (IOException e) {
            throw StorageException.failed("Invalid JSON: %s", e.getMessage());
        }
    }

    /**
     * Whether the guest sees the same data in both images ({@code qemu-img compare}: exit 0 the
     * same, 1 different); fails when qemu-img cannot tell (exit 2).
     */
    public boolean compare(Path a, String formatA, Path b, String formatB) {
        CommandRunner.Result r = statusOf(Command.of(commands().compare(a, formatA, b, formatB)));
        if (r.exitCode() > 1) {
            throw StorageException.failed("qemu-img compare '%s' '%s' failed: %s", a, b, lastLine(r));
        }
        return r.exitCode() == 0;
    }

    /**
     * {@code qemu-img check}: empty when the image is consistent (exit 0; exit 3, leaked clusters
     * only, is harmless), else what qemu-img said about it.
     */
    public Optional<String> check(Path path, String format) {
        CommandRunner.Result r = statusOf(Command.of(commands().check(path, format)));
        return r.exitCode() == 0 || r.exitCode() == 3 ? Optional.empty() : Optional.of(lastLine(r));
    }

    /** Exit 0, or 3 (leaked clusters only: they count as used, so the end is on the safe side). */
    @Override
    public long imageEnd(Path path, String format) {
        CommandRunner.Result r =
                statusOf(Command.of(commands().checkJson(path, format)).withTimeout(INFO_TIMEOUT));
        if (r.exitCode() != 0 && r.exitCode() != 3) {
            throw StorageException.failed("qemu-img check '%s' failed: %s", path, lastLine(r));
        }
        try {
            long end = JsonTree.parse(r.stdout()).path("image-end-offset").asLong(0);
            if (end <= 0) {
                throw StorageException.failed("qemu-img check '%s' gave no image-end-offset", path);
            }
            return end;
        } catch (IOException e) {
            throw StorageException.failed(e, "qemu-img check '%s': unreadable output - %s", path, e.getMessage());
        }
    }

    private CommandRunner.Result statusOf(Command command) {
        return streaming.queryStatus(command);
    }

    private static String lastLine(CommandRunner.Result r) {
        String text = (r.stderr().isBlank() ? r.stdout() : r.stderr()).strip();
        String[] lines = text.split("\n");
        return text.isEmpty() ? "exit code " + r.exitCode() : lines[lines.length - 1].strip();
    }

    /** Reads {@code qemu-img info --output=json}. */
    public static ImageInfo parseInfo(String json, Long ctime) {
        JsonTree n;
        try {
            n = JsonTree.parse(json);
        } catch (IOException e) {
            throw StorageException.failed("qemu-img info returned invalid JSON: %s", e.getMessage());
        }
        if (!n.has("virtual-size") || !n.has("format")) {
            throw StorageException.failed("qemu-img info returned no virtual-size/format");
        }
        String format = n.path("format").text("");
        boolean qcow2 = VolumeFormat.QCOW2.is(format);
        Integer cluster =
                qcow2 && n.has("cluster-size") ? (int) n.path("cluster-size").asLong(0) : null;
        boolean extL2 = qcow2
                && n.path("format-specific").path("data").path("extended-l2").asBoolean(false);
        return ImageInfo.builder(format)
                .virtualSize(n.path("virtual-size").asLong(0))
                .actualSize(n.path("actual-size").asLong(0))
                .backingFile(n.path("backing-filename").text(null))
                .backingFormat(n.path("backing-filename-format").text(null))
                .clusterSize(cluster)
                .extendedL2(extL2)
                .ctime(ctime)
                .build();
    }

    private static Long ctime(Path path) {
        try {
            Object t = Files.getAttribute(path, "unix:ctime");
            return t instanceof java.nio.file.attribute.FileTime ft ? ft.toMillis() / 1000 : null;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return null;
        }
    }
}
