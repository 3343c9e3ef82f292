package dev.vsm.plugin.dir;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.SourceFile;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import dev.vsm.spi.files.DirVolumeNames;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Disks inside the OVAs of a dir storage's {@code import} content (pve's import volumes
 * {@code import/<x>.ova/<disk>.vmdk}, format {@code ova+vmdk}).
 *
 * <p>Listing shows each disk member of each OVA below the OVA itself (pve lists only the OVA and
 * names its disks through its import API, which vsm does not have). As an import's source a disk
 * is extracted to a temporary file beside the OVA ({@link PartialImages}: never listed, swept when
 * its process is gone) and checked as an untrusted image: a vmdk must be one sparse file (a
 * descriptor may name any host file as an extent) and a qcow2 may have no backing or external data
 * file. The archive itself is read by {@link OvaArchive}, which refuses hostile members.
 */
final class OvaDisks {
    private static final byte[] VMDK_SPARSE_MAGIC = {'K', 'D', 'M', 'V'};
    private static final byte[] QCOW2_MAGIC = {'Q', 'F', 'I', (byte) 0xfb};

    private final String storeid;
    private final StorageContext context;

    OvaDisks(String storeid, StorageContext context) {
        this.storeid = requireNonNull(storeid, "storeid");
        this.context = requireNonNull(context, "context");
    }

    /** The disk members of one OVA as import volumes (none when the archive is refused or unreadable). */
    static List<VolumeInfo> list(String storeid, Path ova, Long ctime) {
        OvaArchive archive;
        try {
            archive = OvaArchive.read(ova);
        } catch (StorageException e) {
            return List.of();
        }
        List<VolumeInfo> disks = new ArrayList<>();
        for (OvaArchive.Member m : archive.members()) {
            String volname = "import/" + ova.getFileName() + "/" + m.name();
            Optional<VolumeName> name = parse(volname);
            if (name.isPresent() && name.get().format().startsWith("ova+")) {
                disks.add(new VolumeInfo(storeid + ":" + volname, name.get().format(), ContentType.IMPORT, m.size(), false, null,
                        null, ctime, null));
            }
        }
        return disks;
    }

    private static Optional<VolumeName> parse(String volname) {
        try {
            return Optional.of(DirVolumeNames.parse(volname));
        } catch (StorageException e) {
            return Optional.empty();
        }
    }

    /** Extracts the disk {@code volume} names from its OVA at {@code memberPath} ({@code <import>/<x>.ova/<disk>}). */
    SourceFile extract(VolumeName volume, Path memberPath) {
        Path ova = memberPath.getParent();
        String member = memberPath.getFileName().toString();
        String format = volume.format().substring("ova+".length());
        if (!Files.isRegularFile(ova, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageException.badInput("volume '%s:%s' does not exist: no OVA file '%s'", storeid, volume.volname(), ova);
        }
        OvaArchive archive = OvaArchive.read(ova);
        OvaArchive.Member disk = archive.member(member).orElseThrow(() -> StorageException.badInput(
                "volume '%s:%s' does not exist: OVA '%s' holds no '%s'", storeid, volume.volname(), ova, VolumeId.printable(member)));
        Path importDir = ova.getParent();
        PartialImages partials = new PartialImages(context.nodeName(), context.files());
        context.locks().withStorageLock(storeid, () -> {
            partials.removeAbandoned(importDir);
            return null;
        });
        Path temp = partials.temporaryFor(importDir.resolve(ova.getFileName() + "-" + member));
        archive.extract(disk, temp);
        try {
            checkUntrusted(temp, format, volume);
        } catch (RuntimeException e) {
            delete(temp);
            throw e;
        }
        return new SourceFile(temp, format, () -> delete(temp));
    }

    private void checkUntrusted(Path file, String format, VolumeName volume) {
        byte[] head = head(file, 80);
        switch (format) {
            case "vmdk" -> {
                if (!Arrays.equals(head, 0, 4, VMDK_SPARSE_MAGIC, 0, 4)) {
                    throw refused(volume, "a vmdk in an OVA must be a single sparse file (a descriptor file may name any "
                            + "file of this host as its data)");
                }
            }
            case "qcow2" -> {
                if (!Arrays.equals(head, 0, 4, QCOW2_MAGIC, 0, 4)) {
                    throw refused(volume, "it is not a qcow2 image");
                }
                ByteBuffer b = ByteBuffer.wrap(head).order(ByteOrder.BIG_ENDIAN);
                if (b.getLong(8) != 0) {
                    throw refused(volume, "a qcow2 image in an OVA may not have a backing file");
                }
                if (b.getInt(4) >= 3 && (b.getLong(72) & 0b100) != 0) {
                    throw refused(volume, "a qcow2 image in an OVA may not have an external data file");
                }
            }
            default -> { /* raw: data only */ }
        }
    }

    private StorageException refused(VolumeName volume, String why) {
        return StorageException.badInput("refusing '%s:%s': %s", storeid, volume.volname(), why);
    }

    private static byte[] head(Path file, int n) {
        byte[] b = new byte[n];
        try (InputStream in = Files.newInputStream(file)) {
            in.readNBytes(b, 0, n);
            return b;
        } catch (IOException e) {
            throw StorageException.failed(e, "cannot read '%s': %s", file, e.getMessage());
        }
    }

    private void delete(Path temp) {
        try {
            Files.deleteIfExists(temp);
        } catch (IOException e) {
            context.console().warn("cannot remove '" + temp + "': " + e.getMessage());
        }
    }
}
