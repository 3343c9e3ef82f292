package dev.vsm.transfer;

import static java.util.Objects.requireNonNull;

import dev.vsm.engine.Capabilities;
import dev.vsm.engine.StorageManager;
import dev.vsm.exec.ShellQuote;
import dev.vsm.progress.ProgressMeter;
import dev.vsm.progress.ProgressOutput;
import dev.vsm.qemu.QemuImgRunner;
import dev.vsm.qemu.UntrustedImage;
import dev.vsm.spi.AllocRequest;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.Operation;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Makes a new volume from a pve stream (pve's {@code volume_import} in Plugin.pm): reads the
 * size header, allocates a volume of that size (rounded up to KiB) under the storage lock and
 * writes the data into it — into a file sparsely, into a block device sparsely only when the
 * storage says new volumes read zeros.
 *
 * <p>A bad stream leaves no volume behind: the volume is freed again, and the command fails with
 * one line, when the stream ends before the size its header announces, holds more than that
 * ({@code raw+size}: a size header that lies), or is not a consistent qcow2 image of that virtual
 * size ({@code qcow2+size}, checked with {@code qemu-img check} and {@code info}), and when vsm is
 * stopped while it writes. A {@code tar+size} stream (a subvol) is extracted by {@code tar} into
 * the new directory, each header checked first ({@link TarStreamCheck}).
 */
public final class StreamImporter {
    private final StorageManager manager;
    private final QemuImgRunner qemuImg;
    private final ProgressOutput progress;

    public StreamImporter(StorageManager manager, QemuImgRunner qemuImg, ProgressOutput progress) {
        this.manager = requireNonNull(manager, "manager");
        this.qemuImg = requireNonNull(qemuImg, "qemuImg");
        this.progress = requireNonNull(progress, "progress");
    }

    /** The target of an import: where the new volume goes and what it is. */
    public record Target(String storage, int vmid, String name, VolumeFormat volumeFormat, boolean base) {
        public Target {
            requireNonNull(storage, "storage");
            requireNonNull(volumeFormat, "volumeFormat");
        }

        /** A volume that is no base: {@code name} null for the owner's next free name. */
        public Target(String storage, int vmid, String name, VolumeFormat volumeFormat) {
            this(storage, vmid, name, volumeFormat, false);
        }

        /** The volume a volume id names: its storage, owner, name and format. */
        public static Target of(StorageManager manager, VolumeId volid) {
            VolumeName name = manager.storage(volid.storage()).parseVolname(volid.volname());
            if (name.vmid() == null) {
                throw StorageException.badInput("volume '%s' has no owning guest: only images can be imported", volid);
            }
            VolumeFormat format = name.volumeFormat()
                    .orElseThrow(() -> StorageException.badInput(
                            "volume '%s' is of format %s: only images can be imported", volid, name.format()));
            return new Target(volid.storage(), name.vmid(), name.name(), format, name.isBase());
        }
    }

    /**
     * Checks that {@code target}'s storage takes {@code format} for a volume of its format.
     */
    public void checkFormat(Target target, StreamFormat format, boolean withSnapshots) {
        manager.checkEnabled(target.storage());
        Storage storage = manager.storage(target.storage());
        Set<StreamFormat> formats = storage.importFormats(target.volumeFormat(), withSnapshots);
        if (formats.contains(format)) {
            return;
        }
        if (storage.importFormats(target.volumeFormat(), !withSnapshots).contains(format)) {
            throw StorageException.badInput(
                    "format %s cannot be imported %s snapshots", format, withSnapshots ? "with" : "without");
        }
        throw StorageException.badInput(
                "cannot import format %s into a volume of format %s on storage '%s' (type %s%s)",
                format,
                target.volumeFormat(),
                target.storage(),
                storage.config().type(),
                formats.isEmpty() ? ", which imports none" : ", which takes " + VolumeExporter.names(formats));
    }

    /**
     * What {@code pvesm import} says besides the format: whether the stream carries snapshots,
     * the current-state snapshot ({@code --snapshot}: accepted and not used, as by pve's dir, lvm and
     * lvmthin), the base of an incremental stream ({@code --base}: refused, none of them imports one),
     * a snapshot to delete once imported ({@code --delete-snapshot}: only a stream with snapshots
     * carries one) and whether a taken name may be replaced by a free one ({@code --allow-rename}).
     */
    public record Options(
            boolean withSnapshots, String snapshot, String base, String deleteSnapshot, boolean allowRename) {}

    /** Refuses, before anything is read, what the target's storage cannot do with {@code options}. */
    public void checkOptions(Target target, StreamFormat format, Options options) {
        checkFormat(target, format, options.withSnapshots());
        String type = manager.config(target.storage()).type();
        if (options.base() != null) {
            throw StorageException.badInput(
                    "cannot import an incremental stream (--base) into storage '%s': type %s imports "
                            + "whole volumes only",
                    target.storage(), type);
        }
        if (options.deleteSnapshot() != null && !options.withSnapshots()) {
            throw StorageException.badInput(
                    "--delete-snapshot needs a stream with snapshots (--with-snapshots 1): a %s stream "
                            + "without them leaves the new volume no snapshot to delete",
                    format);
        }
    }

    /**
     * Imports from a file or standard input with {@code pvesm import}'s options.
     *
     * @param input  the file, or null for standard input
     * @param limit  a bandwidth limit, or null
     * @param dryRun read the header and print what would be done; write nothing
     */
    public VolumeId importStream(
            Target target, StreamFormat format, Options options, Path input, BandwidthLimit limit, boolean dryRun) {
        checkOptions(target, format, options);
        try (StreamInput in = StreamInput.open(input, limit)) {
            return importStream(
                    target,
                    format,
                    options,
                    in.in(),
                    input == null ? "standard input" : ShellQuote.quote(input.toString()),
                    dryRun);
        }
    }

    /**
     * Imports from {@code in} (a socket the caller accepted; not closed), the options checked
     * with {@link #checkOptions} first.
     *
     * @param from what {@code in} is, for the dry run's line
     */
    public VolumeId importStream(
            Target target, StreamFormat format, Options options, InputStream in, String from, boolean dryRun) {
        checkOptions(target, format, options);
        if (target.base()) {
            Capabilities.require(manager.storage(target.storage()), Operation.CREATE_BASE);
        }
        Target to = target.base()
                ? beforeItIsABase(target, options.allowRename())
                : renamedIfTaken(target, options.allowRename());
        if (dryRun) {
            long size = readHeader(in, format);
            VolumeId volid = allocate(to, size);
            manager.context()
                    .console()
                    .info("+ write " + format + " data (" + size + " bytes) from " + from + " to "
                            + manager.path(volid));
            if (target.base()) {
                manager.context().console().info("+ make '" + volid + "' a base volume (vsm create-base)");
            }
            return volid;
        }
        VolumeId imported = importFrom(to, format, in, options.deleteSnapshot());
        if (!target.base()) {
            return imported;
        }
        try {
            return manager.createBase(imported);
        } catch (RuntimeException e) {
            throw FailureCleanup.free(manager, imported, e);
        }
    }

    /**
     * A base volume is imported as pve's lvmthin imports one: as the guest's volume of the same
     * name with {@code vm-} for {@code base-} (the next free one when that is taken and
     * {@code --allow-rename 1} is given), which then becomes the base, as {@code vsm create-base}
     * makes one. A base name that is taken is refused before anything is read, unless renaming is
     * allowed. On a dir storage, where pve writes the file under its base name, vsm's imported
     * base is therefore read-only like every other base.
     */
    private Target beforeItIsABase(Target base, boolean allowRename) {
        if (taken(base)) {
            if (!allowRename) {
                throw StorageException.badInput(
                        "volume '%s' already exists on storage '%s' (--allow-rename 1 imports it under the next free name)",
                        base.name(), base.storage());
            }
            return renamed(base);
        }
        String name = base.name().startsWith("base-") ? "vm-" + base.name().substring("base-".length()) : base.name();
        return renamedIfTaken(new Target(base.storage(), base.vmid(), name, base.volumeFormat()), allowRename);
    }

    /**
     * Makes a file of other content than images (iso, vztmpl, snippets, import) from a
     * {@code raw+size} stream, as pve's path-based plugins do: the data is the file. A file of that
     * name is never replaced, with {@code --allow-rename} or without (pve renames only images).
     *
     * @param in   the stream, not closed
     * @param from what {@code in} is, for the dry run's line
     */
    public VolumeId importContent(
            VolumeId volid, StreamFormat format, Options options, InputStream in, String from, boolean dryRun) {
        checkContent(volid, format, options);
        Storage storage = manager.activate(volid.storage());
        VolumeName name = storage.parseVolname(volid.volname());
        Path path = storage.path(name);
        long size = readHeader(in, 0);
        if (dryRun) {
            manager.context()
                    .console()
                    .info("+ write " + format + " data (" + size + " bytes) from " + from + " to " + path);
            return volid;
        }
        try (Interruption stop = Interruption.watch("import of '" + volid + "'")) {
            storage.writeContent(name, temp -> write(volid.toString(), temp, true, format, size, true, in, stop));
        } catch (RuntimeException e) {
            throw nothingKept(e);
        }
        return volid;
    }

    /** As {@link #importContent(VolumeId, StreamFormat, Options, InputStream, String, boolean)}, from a file or standard input. */
    public VolumeId importContent(
            VolumeId volid, StreamFormat format, Options options, Path input, BandwidthLimit limit, boolean dryRun) {
        checkContent(volid, format, options);
        try (StreamInput in = StreamInput.open(input, limit)) {
            return importContent(
                    volid,
                    format,
                    options,
                    in.in(),
                    input == null ? "standard input" : ShellQuote.quote(input.toString()),
                    dryRun);
        }
    }

    /**
     * Makes a file of iso, vztmpl or import content from its bytes alone, to their end (pve's
     * {@code upload}): refused first as {@link #checkContent} refuses, then written to a temporary
     * in the storage, checked and only then named, so that a failure leaves nothing. An iso must
     * not be an image that names data outside itself, nor an import image of qcow2, raw or vmdk
     * ({@link UntrustedImage}, pve's {@code assert_iso_content} and {@code file_size_info} with
     * {@code untrusted}); {@code verify} is then given the temporary (a checksum) and may throw.
     *
     * @param in the file's bytes, read to their end, not closed
     */
    public VolumeId importFile(VolumeId volid, InputStream in, java.util.function.Consumer<Path> verify) {
        checkFile(volid);
        Storage storage = manager.activate(volid.storage());
        VolumeName name = storage.parseVolname(volid.volname());
        try (Interruption stop = Interruption.watch("upload of '" + volid + "'")) {
            storage.writeContent(name, temp -> {
                ProgressMeter meter = ProgressMeter.start("upload " + volid, 0, progress);
                try (VolumeWriter out = VolumeWriter.open(temp, true)) {
                    ByteMover.copy(in, out, -1, meter, stop);
                    out.finish();
                } catch (RuntimeException e) {
                    meter.abandon();
                    throw e;
                }
                meter.finish();
                verify.accept(temp);
                String format = name.type() == ContentType.ISO
                        ? null
                        : name.type() == ContentType.IMPORT
                                ? name.volumeFormat().map(VolumeFormat::id).orElse(null)
                                : "";
                if (format == null || !format.isEmpty()) {
                    UntrustedImage.inspect(temp, format, volid.toString());
                }
            });
        }
        return volid;
    }

    /** Refuses, before anything is read, a file {@link #importFile} would not make: as {@link #checkContent}, and content the storage does not hold. */
    public void checkFile(VolumeId volid) {
        checkContent(volid, StreamFormat.RAW_SIZE, new Options(false, null, null, null, false));
        VolumeName name = manager.storage(volid.storage()).parseVolname(volid.volname());
        if (!manager.config(volid.storage())
                .content(manager.schema(volid.storage()).defaultContent())
                .contains(name.type())) {
            throw StorageException.badInput(
                    "storage '%s' does not support '%s' content",
                    volid.storage(), name.type().id());
        }
    }

    /** Refuses, before anything is read, a content file the storage does not take in {@code format} with {@code options}. */
    public void checkContent(VolumeId volid, StreamFormat format, Options options) {
        manager.checkEnabled(volid.storage());
        Storage storage = manager.storage(volid.storage());
        VolumeName name = storage.parseVolname(volid.volname());
        String type = storage.config().type();
        Set<StreamFormat> formats = storage.contentImportFormats(name, options.withSnapshots());
        if (!formats.contains(format)) {
            Set<StreamFormat> plain = storage.contentImportFormats(name, false);
            throw StorageException.badInput(
                    "cannot import format %s%s into %s file '%s' on storage '%s' (type %s takes %s)",
                    format,
                    options.withSnapshots() ? " with snapshots" : "",
                    name.type().id(),
                    volid,
                    volid.storage(),
                    type,
                    plain.isEmpty()
                            ? "no such file from a stream"
                            : VolumeExporter.names(plain) + " without snapshots");
        }
        if (options.base() != null) {
            throw StorageException.badInput(
                    "cannot import an incremental stream (--base) into storage '%s': type %s imports "
                            + "whole volumes only",
                    volid.storage(), type);
        }
        if (options.deleteSnapshot() != null) {
            throw StorageException.badInput(
                    "--delete-snapshot needs a stream with snapshots (--with-snapshots 1): a %s stream "
                            + "without them leaves the new volume no snapshot to delete",
                    format);
        }
        Path path = storage.path(name);
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("file '%s' already exists", path);
        }
    }

    /**
     * With {@code --allow-rename 1} a target whose name is taken becomes a new volume of the same
     * owner and format with the next free name (pve warns and imports with a different name);
     * without it the allocation refuses the taken name.
     */
    private Target renamedIfTaken(Target target, boolean allowRename) {
        if (!allowRename || target.name() == null || !taken(target)) {
            return target;
        }
        return renamed(target);
    }

    /** pve's warning, and the target with the owner's next free name instead of its taken one. */
    private Target renamed(Target target) {
        manager.context()
                .console()
                .warn("volume '" + target.name() + "' already exists on storage '" + target.storage()
                        + "' - importing with a different name");
        return new Target(target.storage(), target.vmid(), null, target.volumeFormat());
    }

    /** Whether the owner of {@code target} has a volume of its name already. */
    private boolean taken(Target target) {
        Storage storage = manager.activate(target.storage());
        return storage.listImages(target.vmid()).stream()
                .anyMatch(v -> storage.parseVolname(VolumeId.parse(v.volid()).volname())
                        .name()
                        .equals(target.name()));
    }

    /**
     * Imports from a stream (the caller checked the format with {@link #checkFormat}); the stream
     * is not closed. Where the storage can ({@link Storage#allocWritten}) the volume counts as one
     * only once it is written, so that a crash leaves nothing listed; elsewhere it is allocated,
     * written, and freed again when writing fails.
     */
    VolumeId importFrom(Target target, StreamFormat format, InputStream in) {
        return importFrom(target, format, in, null);
    }

    /** As {@link #importFrom(Target, StreamFormat, InputStream)}, deleting snapshot {@code deleteSnapshot} (if not null) before the volume counts as one. */
    private VolumeId importFrom(Target target, StreamFormat format, InputStream in, String deleteSnapshot) {
        long size = readHeader(in, format);
        String label =
                target.storage() + ":" + (target.name() != null ? target.name() : "new volume of " + target.vmid());
        Optional<String> made;
        try (Interruption stop = Interruption.watch("import of '" + label + "'")) {
            Storage storage = checkedForAlloc(target);
            AllocRequest request = AllocRequest.of(target.vmid(), target.name(), target.volumeFormat(), kib(size));
            try {
                made = storage.allocWritten(request, path -> {
                    write(label, path, storage.newVolumesReadZeros(), format, size, false, in, stop);
                    deleteSnapshot(path, target.volumeFormat().id(), deleteSnapshot);
                });
            } catch (RuntimeException e) {
                throw nothingKept(e);
            }
        }
        if (made.isPresent()) {
            return new VolumeId(target.storage(), made.get());
        }
        VolumeId volid = allocate(target, size);
        try (Interruption stop = Interruption.watch("import of '" + volid + "'")) {
            try {
                Storage storage = manager.storage(volid.storage());
                VolumeName name = storage.parseVolname(volid.volname());
                storage.activateVolume(name);
                write(
                        volid.toString(),
                        storage.path(name),
                        storage.newVolumesReadZeros(),
                        format,
                        size,
                        false,
                        in,
                        stop);
                deleteSnapshot(storage.path(name), name.format(), deleteSnapshot);
            } catch (RuntimeException e) {
                throw FailureCleanup.free(manager, volid, e);
            }
        }
        return volid;
    }

    /** The checks {@link StorageManager#alloc} makes before allocating: enabled, format taken, activated. */
    private Storage checkedForAlloc(Target target) {
        manager.checkEnabled(target.storage());
        manager.supportedFormat(target.storage(), target.volumeFormat().id());
        return manager.activate(target.storage());
    }

    /** A failed {@code allocWritten} kept nothing; says so unless the storage did. */
    private static StorageException nothingKept(RuntimeException e) {
        StorageException.Kind kind = e instanceof StorageException se ? se.kind() : StorageException.Kind.FAILED;
        String message = e instanceof StorageException ? e.getMessage() : String.valueOf(e);
        return message.endsWith(" again)")
                ? (e instanceof StorageException se ? se : new StorageException(kind, message, e))
                : new StorageException(kind, message + " (nothing was kept)", e);
    }

    private static long kib(long size) {
        return size / 1024 + (size % 1024 == 0 ? 0 : 1); // (size + 1023) / 1024 overflows near 2^63
    }

    /**
     * The size header of a volume's stream: 1 or more, but for {@code tar+size}, where it is a
     * subvol's size, which pve writes as 0 (and a storage without subvol quotas refuses any other).
     */
    private static long readHeader(InputStream in, StreamFormat format) {
        return readHeader(in, format == StreamFormat.TAR_SIZE ? 0 : 1);
    }

    /** The size header, taking sizes from {@code least} (0 for a file of other content than images). */
    private static long readHeader(InputStream in, long least) {
        try {
            return SizeHeader.read(in, least);
        } catch (IOException e) {
            throw StorageException.failed(e, "import: reading the size header failed: %s", e.getMessage());
        }
    }

    private VolumeId allocate(Target target, long size) {
        return manager.alloc(
                target.storage(),
                target.vmid(),
                target.name(),
                target.volumeFormat().id(),
                kib(size),
                null);
    }

    /**
     * Writes the stream's data to {@code path}.
     *
     * @param file whether the data is a file of other content than images, whose header pve
     *     writes rounded up to whole sectors ({@link SizeHeader#ofFile}): such a stream may end
     *     up to a sector short of its header
     */
    private void write(
            String label,
            Path path,
            boolean readsZeros,
            StreamFormat format,
            long size,
            boolean file,
            InputStream in,
            Interruption stop) {
        boolean raw = format == StreamFormat.RAW_SIZE;
        ProgressMeter meter = ProgressMeter.start("import " + label, raw ? size : 0, progress);
        if (format == StreamFormat.TAR_SIZE) {
            try {
                SubvolTar.receive(in, path, meter, stop);
            } catch (RuntimeException e) {
                meter.abandon();
                throw e;
            }
            meter.finish();
            return;
        }
        try (VolumeWriter out = VolumeWriter.open(path, readsZeros)) {
            long written = ByteMover.copy(in, out, raw ? size : -1, meter, stop);
            if (raw && written < size && !(file && SizeHeader.ofFile(written) == size)) {
                throw StorageException.badInput(
                        "import: the stream ended after %d of the %d bytes its size header announces "
                                + "(truncated stream?)",
                        written, size);
            }
            if (raw && readsMore(in, stop)) {
                throw StorageException.badInput(
                        "import: the stream holds more than the %d bytes its size header "
                                + "announces (a size header that lies?)",
                        size);
            }
            out.finish();
        } catch (RuntimeException e) {
            meter.abandon();
            throw e;
        }
        if (format != StreamFormat.RAW_SIZE) {
            checkImage(path, format.dataFormat().id(), size);
        }
        meter.finish();
    }

    /** {@code --delete-snapshot}: the snapshot the stream carried is deleted from the image just written. */
    private void deleteSnapshot(Path path, String format, String snapshot) {
        if (snapshot == null) {
            return;
        }
        List<String> present = qemuImg.snapshots(path, format);
        if (!present.contains(snapshot)) {
            throw StorageException.badInput(
                    "import: the stream carries no snapshot '%s' to delete (--delete-snapshot; it carries: %s)",
                    snapshot, present.isEmpty() ? "none" : String.join(", ", present));
        }
        qemuImg.snapshot(path, format, QemuImg.SnapshotAction.DELETE, snapshot);
    }

    private static boolean readsMore(InputStream in, Interruption stop) {
        try {
            return in.read() >= 0;
        } catch (IOException e) {
            stop.check();
            throw StorageException.failed(e, "import: reading the stream failed: %s", e.getMessage());
        }
    }

    /**
     * A qcow2 or vmdk stream must be a self-contained ({@link UntrustedImage}: no backing or data file,
     * inspected before qemu-img opens it) and consistent image of the virtual size its header
     * announces.
     */
    private void checkImage(Path path, String fmt, long size) {
        try {
            UntrustedImage.inspect(path, fmt, "the stream");
        } catch (StorageException e) {
            throw StorageException.badInput(
                    "import: the stream is not a consistent %s image, or names data outside itself: %s",
                    fmt, e.getMessage());
        }
        qemuImg.check(path, fmt).ifPresent(problem -> {
            throw StorageException.badInput(
                    "import: the stream is not a consistent %s image (truncated or corrupt?): %s", fmt, problem);
        });
        long virtual = qemuImg.info(path, fmt).virtualSize();
        if (virtual != size) {
            throw StorageException.badInput(
                    "import: the size header says %d bytes but the %s image's virtual size is %d", size, fmt, virtual);
        }
    }
}
