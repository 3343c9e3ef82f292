package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.SourceFile;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Disks inside the OVAs of a file storage's {@code import} content (pve's import volumes
 * {@code import/<x>.ova/<disk>.vmdk}, format {@code ova+vmdk}).
 *
 * <p>Listing shows each disk member of each OVA below the OVA itself (pve lists only the OVA and
 * names its disks through its import API, which vsm does not have). As an import's source a disk
 * is extracted to a temporary file beside the OVA ({@link PartialImages}: never listed, swept when
 * its process is gone), which the framework inspects as an untrusted image before any qemu-img
 * reads it, as it does every image vsm did not make. The archive itself is read by
 * {@link OvaArchive}, which refuses hostile members.
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
                disks.add(VolumeInfo.builder(storeid + ":" + volname, name.get().format(), ContentType.IMPORT)
                        .size(m.size())
                        .ctime(ctime)
                        .build());
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
            throw StorageException.badInput(
                    "volume '%s:%s' does not exist: no OVA file '%s'", storeid, volume.volname(), ova);
        }
        OvaArchive archive = OvaArchive.read(ova);
        OvaArchive.Member disk = archive.member(member)
                .orElseThrow(() -> StorageException.badInput(
                        "volume '%s:%s' does not exist: OVA '%s' holds no '%s'",
                        storeid, volume.volname(), ova, VolumeId.printable(member)));
        Path importDir = ova.getParent();
        PartialImages partials = new PartialImages(context.nodeName(), context.files());
        context.locks().withStorageLock(storeid, () -> {
            partials.removeAbandoned(importDir);
            return null;
        });
        Path temp = partials.temporaryFor(importDir.resolve(ova.getFileName() + "-" + member));
        archive.extract(disk, temp);
        return SourceFile.temporary(temp, format, () -> delete(temp));
    }

    private void delete(Path temp) {
        try {
            Files.deleteIfExists(temp);
        } catch (IOException e) {
            context.console().warn("cannot remove '" + temp + "': " + e.getMessage());
        }
    }
}
