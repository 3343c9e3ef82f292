package dev.vsm.transfer;

import static java.util.Objects.requireNonNull;

import dev.vsm.engine.StorageManager;
import dev.vsm.progress.ProgressMeter;
import dev.vsm.progress.ProgressOutput;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.ImageConversion;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.Storage;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StreamFormat;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Writes a volume as a pve stream (pve's {@code volume_export} in Plugin.pm): the 8-byte size
 * header (the virtual size), then for {@code raw+size} the guest-visible data (a raw volume read
 * as it is, any other format first converted to a raw file beside it), for {@code qcow2+size}
 * the qcow2 file to its end, for {@code tar+size} (a subvol) the header 0 and a tar archive of the
 * directory ({@link SubvolTar}). A file of other content (iso, vztmpl, snippets, import) is sent as
 * {@code raw+size} byte for byte (pve converts an import directory's qcow2 or vmdk file to raw
 * data, which the receiver then writes under the {@code .qcow2} or {@code .vmdk} name). With a bandwidth limit the data passes through cstream.
 */
public final class VolumeExporter {
    private final StorageManager manager;
    private final QemuImg qemuImg;
    private final ProgressOutput progress;

    public VolumeExporter(StorageManager manager, QemuImg qemuImg, ProgressOutput progress) {
        this.manager = requireNonNull(manager, "manager");
        this.qemuImg = requireNonNull(qemuImg, "qemuImg");
        this.progress = requireNonNull(progress, "progress");
    }

    /** Refuses a format the volume's storage does not export it in (naming the one it does). */
    private void checkExportable(VolumeId volid, VolumeName name, StreamFormat format, boolean withSnapshots) {
        Storage storage = manager.storage(volid.storage());
        Set<StreamFormat> formats = storage.exportFormats(name, withSnapshots);
        if (!formats.contains(format)) {
            Set<StreamFormat> other = storage.exportFormats(name, !withSnapshots);
            if (other.contains(format)) {
                throw StorageException.badInput(
                        "volume export format %s needs --with-snapshots %d", format, withSnapshots ? 0 : 1);
            }
            throw StorageException.badInput(
                    "volume export format %s not available for '%s' (storage type %s%s)",
                    format,
                    volid,
                    storage.config().type(),
                    formats.isEmpty() ? ", which exports none" : ": " + names(formats));
        }
    }

    static String names(Set<StreamFormat> formats) {
        return formats.stream().map(StreamFormat::id).sorted().collect(Collectors.joining(", "));
    }

    /**
     * Writes the stream to {@code out} (not closed).
     *
     * @param limit a bandwidth limit, or null
     * @return the data bytes written after the header
     */
    public long export(
            VolumeId volid, StreamFormat format, boolean withSnapshots, OutputStream out, BandwidthLimit limit) {
        return export(volid, format, Snapshots.of(withSnapshots), out, limit);
    }

    /**
     * What {@code pvesm export} says about snapshots: {@code withSnapshots}, the snapshot to export
     * ({@code --snapshot}), the base of an incremental stream ({@code --base}) and the snapshots to
     * transfer ({@code --snapshot-list}, which implies {@code withSnapshots}, as in pve).
     */
    public record Snapshots(boolean withSnapshots, String snapshot, String base, List<String> list) {
        public Snapshots {
            list = list == null ? null : List.copyOf(list);
            withSnapshots = withSnapshots || list != null;
        }

        public static Snapshots of(boolean withSnapshots) {
            return new Snapshots(withSnapshots, null, null, null);
        }
    }

    /**
     * Refuses what no storage type vsm knows can export, before anything is read or written: a
     * snapshot instead of the current state and an incremental stream (pve's dir, lvm and lvmthin
     * refuse both), and a format the volume is not exported in.
     */
    private void checkRequest(VolumeId volid, VolumeName name, StreamFormat format, Snapshots snapshots) {
        Storage storage = manager.storage(volid.storage());
        String type = storage.config().type();
        if (snapshots.snapshot() != null) {
            throw StorageException.badInput(
                    "cannot export a snapshot (--snapshot) of '%s': storage type %s exports a volume's "
                            + "current state only (%s)",
                    volid, type, offered(storage, name));
        }
        if (snapshots.base() != null) {
            throw StorageException.badInput(
                    "cannot export an incremental stream (--base) of '%s': storage type %s exports whole "
                            + "volumes only (%s)",
                    volid, type, offered(storage, name));
        }
        checkExportable(volid, name, format, snapshots.withSnapshots());
    }

    /** The formats a volume is exported in, for a message: {@code raw+size; with snapshots: qcow2+size}. */
    private static String offered(Storage storage, VolumeName name) {
        Set<StreamFormat> plain = storage.exportFormats(name, false);
        Set<StreamFormat> with = storage.exportFormats(name, true);
        if (plain.isEmpty() && with.isEmpty()) {
            return "this volume: none";
        }
        return "this volume: " + (plain.isEmpty() ? "none" : names(plain)) + " with --with-snapshots 0"
                + (with.isEmpty() ? "" : ", " + names(with) + " with --with-snapshots 1");
    }

    /** Every snapshot {@code --snapshot-list} names must be in the image (a qcow2 or vmdk file carries all of its snapshots). */
    private void checkListed(VolumeId volid, Path path, VolumeName name, Snapshots snapshots) {
        if (snapshots.list() == null || snapshots.list().isEmpty()) {
            return;
        }
        List<String> present = qemuImg.snapshots(path, name.format());
        for (String s : snapshots.list()) {
            if (!present.contains(s)) {
                throw StorageException.badInput(
                        "snapshot '%s' (--snapshot-list) does not exist on '%s' (it has: %s)",
                        s, volid, present.isEmpty() ? "none" : String.join(", ", present));
            }
        }
    }

    /**
     * Writes the stream to {@code out} (not closed).
     *
     * @param limit a bandwidth limit, or null
     * @return the data bytes written after the header
     */
    public long export(
            VolumeId volid, StreamFormat format, Snapshots snapshots, OutputStream out, BandwidthLimit limit) {
        StorageManager.Volume volume = manager.volume(volid);
        Storage storage = volume.storage();
        VolumeName name = volume.name();
        checkRequest(volid, name, format, snapshots);
        storage.activateVolume(name);
        Path path = storage.path(name);
        if (format != StreamFormat.RAW_SIZE) {
            checkListed(volid, path, name, snapshots);
        }
        if (name.type() != ContentType.IMAGES && name.type() != ContentType.ROOTDIR) {
            // an iso, template, snippet or import file: its bytes as they are, so that the copy is the
            // same file, under pve's header: qemu-img's size of the file read as raw, which is the
            // length rounded up to whole 512-byte sectors
            long length = sizeOf(path);
            return send(volid, path, SizeHeader.ofFile(length), length, out, limit);
        }
        if (format == StreamFormat.TAR_SIZE) {
            return sendTar(volid, path, out, limit);
        }
        long size = storage.volumeSizeInfo(name).virtualSize();
        Path temp = null;
        try {
            Path data = path;
            if (format == StreamFormat.RAW_SIZE && !name.hasFormat(VolumeFormat.RAW)) {
                temp = path.resolveSibling(
                        ".vsm-export-" + ProcessHandle.current().pid() + ".raw");
                qemuImg.convert(ImageConversion.builder(path, name.format(), temp, VolumeFormat.RAW)
                        .sizeBytes(size)
                        .build());
                data = temp;
            }
            long dataBytes = format == StreamFormat.RAW_SIZE ? size : -1;
            return send(volid, data, size, dataBytes, out, limit);
        } finally {
            if (temp != null) {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException e) {
                    manager.context().console().warn("cannot remove '" + temp + "': " + e.getMessage());
                }
            }
        }
    }

    /** The header, then {@code dataBytes} bytes of {@code data} (all of it when negative). */
    private long send(VolumeId volid, Path data, long header, long dataBytes, OutputStream out, BandwidthLimit limit) {
        long total = dataBytes >= 0 ? dataBytes : sizeOf(data);
        ProgressMeter meter = ProgressMeter.start("export " + volid, total, progress);
        try (Interruption stop = Interruption.watch("export of '" + volid + "'");
                StreamInput in = StreamInput.open(data, limit)) {
            SizeHeader.write(out, header);
            long sent = ByteMover.copy(in.in(), out, dataBytes, meter, stop);
            out.flush();
            if (dataBytes >= 0 && sent < dataBytes) {
                throw StorageException.failed(
                        "export of '%s': '%s' ended after %d of %d bytes", volid, data, sent, dataBytes);
            }
            meter.finish();
            return sent;
        } catch (IOException e) {
            meter.abandon();
            throw StorageException.failed(e, "export of '%s' failed: %s", volid, e.getMessage());
        } catch (RuntimeException e) {
            meter.abandon();
            throw e;
        }
    }

    /** A subvol: the header 0 (pve's size of a directory), then the archive of its directory ({@link SubvolTar}). */
    private long sendTar(VolumeId volid, Path dir, OutputStream out, BandwidthLimit limit) {
        ProgressMeter meter = ProgressMeter.start("export " + volid, 0, progress);
        try (Interruption stop = Interruption.watch("export of '" + volid + "'")) {
            SizeHeader.write(out, 0);
            long sent = SubvolTar.send(dir, out, limit, meter, stop);
            out.flush();
            meter.finish();
            return sent;
        } catch (IOException e) {
            meter.abandon();
            throw StorageException.failed(e, "export of '%s' failed: %s", volid, e.getMessage());
        } catch (RuntimeException e) {
            meter.abandon();
            throw e;
        }
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw StorageException.failed(e, "cannot read '%s': %s", file, e.getMessage());
        }
    }
}
