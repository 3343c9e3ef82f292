package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.HeldFile;
import dev.vsm.spi.SourceFile;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeInfo;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
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
    private final StorageTree tree;

    OvaDisks(String storeid, StorageContext context, StorageTree tree) {
        this.storeid = requireNonNull(storeid, "storeid");
        this.context = requireNonNull(context, "context");
        this.tree = requireNonNull(tree, "tree");
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

    /**
     * Extracts the disk {@code volume} names from its OVA at {@code memberPath} ({@code <import>/<x>.ova/<disk>}).
     * The OVA is opened once, by descriptor from the storage's base ({@link StorageTree}), and the
     * headers checked and the disk copied are those of that open file; the copy is created
     * exclusively beside it and handed on as the descriptor vsm holds ({@link HeldFile#path()}), so a
     * name swapped in the import directory meanwhile changes neither what is read nor what is written.
     */
    SourceFile extract(VolumeName volume, Path memberPath) {
        Path ova = memberPath.getParent();
        String member = memberPath.getFileName().toString();
        String format = volume.format().substring("ova+".length());
        Path importDir = ova.getParent();
        PartialImages partials = new PartialImages(context.nodeName(), context.files());
        context.locks().withStorageLock(storeid, () -> {
            partials.removeAbandoned(importDir);
            return null;
        });
        String tempName = partials.temporaryFor(importDir.resolve(ova.getFileName() + "-" + member))
                .getFileName()
                .toString();
        StorageTree.Dir dir = null;
        HeldFile copy = null;
        try {
            dir = tree.open(importDir);
            try (HeldFile source = dir.openRegular(ova.getFileName().toString())) {
                OvaArchive archive = OvaArchive.read(ova, source.channel());
                OvaArchive.Member disk = archive.member(member)
                        .orElseThrow(() -> StorageException.badInput(
                                "volume '%s:%s' does not exist: OVA '%s' holds no '%s'",
                                storeid, volume.volname(), ova, VolumeId.printable(member)));
                copy = dir.create(tempName);
                archive.extract(disk, source.channel(), copy.channel());
            }
            StorageTree.Dir held = dir;
            HeldFile written = copy;
            return SourceFile.temporary(written.path(), format, () -> release(held, tempName, written));
        } catch (NoSuchFileException e) {
            release(dir, tempName, copy);
            throw StorageException.badInput(
                    "volume '%s:%s' does not exist: no OVA file '%s'", storeid, volume.volname(), ova);
        } catch (IOException e) {
            release(dir, tempName, copy);
            throw StorageException.failed(e, "cannot read OVA '%s': %s", VolumeId.printable(ova.toString()), e);
        } catch (RuntimeException e) {
            release(dir, tempName, copy);
            throw e;
        }
    }

    /** Removes the copy (if it is still the entry of that name) and lets go of it and its directory. */
    private void release(StorageTree.Dir dir, String tempName, HeldFile copy) {
        try {
            if (copy != null) {
                dir.deleteIfSame(tempName, copy);
                copy.close();
            }
            if (dir != null) {
                dir.close();
            }
        } catch (IOException e) {
            context.console().warn("cannot remove '" + tempName + "': " + e.getMessage());
        }
    }
}
