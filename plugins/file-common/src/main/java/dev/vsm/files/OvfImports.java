package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.HeldFile;
import dev.vsm.spi.ImportMetadata;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.VolumeName;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The import metadata of an OVF or OVA of a file storage's {@code import} content (pve's
 * {@code DirPlugin::get_import_metadata}). The descriptor is read by descriptor from the storage's
 * base ({@link StorageTree}): a {@code .ovf} file opened without following links, or the first
 * {@code *.ovf} member of an OVA read from the archive opened once ({@link OvaArchive}, which
 * refuses hostile members and headers that lie about sizes). Each disk the descriptor names is
 * checked where it must be:
 *
 * <ul>
 *   <li>beside an OVF, a regular file in the same {@code import} directory (not a link) whose name
 *       is an import volume ({@code .qcow2}, {@code .raw}, {@code .vmdk}); its size is left to the
 *       framework, which reads the image as untrusted, as pve reads the file's size;</li>
 *   <li>in an OVA, a member of that archive whose name is a disk volume ({@code ova+<format>});
 *       its size is the descriptor's capacity, as in pve.</li>
 * </ul>
 *
 * A disk that is not there is refused, never reported: an OVA whose descriptor names disks the
 * archive does not hold lies about itself.
 */
final class OvfImports {
    private final String storeid;
    private final StorageTree tree;

    OvfImports(String storeid, StorageTree tree) {
        this.storeid = requireNonNull(storeid, "storeid");
        this.tree = requireNonNull(tree, "tree");
    }

    ImportMetadata read(VolumeName volume, Path path) {
        String volid = storeid + ":" + volume.volname();
        if (volume.type() != ContentType.IMPORT) {
            throw StorageException.badInput(
                    "volume '%s' is of content type '%s': import-metadata reads the .ovf and .ova files of "
                            + "import content",
                    VolumeId.printable(volid), volume.type().id());
        }
        boolean ova = volume.format().equals("ova");
        if (!ova && !volume.format().equals("ovf")) {
            throw StorageException.badInput(
                    "volume '%s' has format '%s': import-metadata reads .ovf and .ova files",
                    VolumeId.printable(volid), volume.format());
        }
        Path dir = path.getParent();
        String file = path.getFileName().toString();
        try (StorageTree.Dir d = tree.open(dir);
                HeldFile held = d.openRegular(file)) {
            FileChannel ch = held.channel();
            OvaArchive archive = null;
            byte[] data;
            if (ova) {
                archive = OvaArchive.read(path, ch);
                OvaArchive.Member descriptor = archive.members().stream()
                        .filter(m -> m.name().endsWith(".ovf"))
                        .findFirst()
                        .orElseThrow(() -> StorageException.badInput(
                                "refusing OVA '%s': it holds no OVF descriptor (*.ovf)", VolumeId.printable(volid)));
                if (descriptor.size() > OvfDescriptor.MAX_BYTES) {
                    throw OvfDescriptor.refused(volid, "it is larger than %d bytes", OvfDescriptor.MAX_BYTES);
                }
                data = read(ch, descriptor.offset(), (int) descriptor.size());
            } else {
                long size = ch.size();
                if (size > OvfDescriptor.MAX_BYTES) {
                    throw OvfDescriptor.refused(volid, "it is larger than %d bytes", OvfDescriptor.MAX_BYTES);
                }
                data = read(ch, 0, (int) size);
            }
            OvfDescriptor ovf = OvfDescriptor.parse(data, volid);
            ImportMetadata.Builder b = ImportMetadata.builder(volume.volname());
            if (ova) {
                b.warning(ImportMetadata.Warning.of("ova-needs-extracting"));
            }
            ovf.createArgs().forEach(b::createArg);
            List<String> boot = new ArrayList<>();
            for (OvfDescriptor.Disk disk : ovf.disks()) {
                ImportMetadata.Disk found = ova ? inOva(volume, volid, archive, disk) : besideOvf(d, volid, disk);
                b.disk(disk.address(), found);
                boot.add(disk.address());
            }
            if (!boot.isEmpty()) {
                b.createArg("boot", "order=" + String.join(";", boot));
            }
            for (int i = 0; i < ovf.nicModels().size(); i++) {
                b.net("net" + i, Map.of("model", ovf.nicModels().get(i)));
            }
            if ("ovmf".equals(ovf.createArgs().get("bios"))) {
                b.efiDisk(true);
                b.warning(ImportMetadata.Warning.of("efi-state-lost", "bios", "ovmf"));
            }
            ovf.notes().forEach(b::note);
            return b.build();
        } catch (NoSuchFileException e) {
            throw StorageException.badInput("volume '%s' does not exist", VolumeId.printable(volid));
        } catch (IOException e) {
            throw StorageException.failed(e, "cannot read '%s': %s", VolumeId.printable(volid), e.getMessage());
        }
    }

    private ImportMetadata.Disk inOva(VolumeName volume, String volid, OvaArchive archive, OvfDescriptor.Disk disk) {
        Optional<OvaArchive.Member> member = archive.member(disk.file());
        if (member.isEmpty()) {
            throw StorageException.badInput(
                    "refusing OVA '%s': its descriptor names the disk '%s', which the archive does not hold",
                    VolumeId.printable(volid), VolumeId.printable(disk.file()));
        }
        String volname = volume.volname() + "/" + disk.file();
        if (!diskVolume(volname, true)) {
            throw StorageException.badInput(
                    "refusing OVA '%s': its disk '%s' is not named as a qcow2, raw or vmdk image",
                    VolumeId.printable(volid), VolumeId.printable(disk.file()));
        }
        return ImportMetadata.Disk.of(new VolumeId(storeid, volname), disk.capacity());
    }

    private ImportMetadata.Disk besideOvf(StorageTree.Dir dir, String volid, OvfDescriptor.Disk disk)
            throws IOException {
        Optional<PosixFileAttributes> attrs = dir.stat(disk.file());
        if (attrs.isEmpty()) {
            throw StorageException.badInput(
                    "OVF '%s' names the disk '%s', which does not exist in %s",
                    VolumeId.printable(volid), VolumeId.printable(disk.file()), dir.path());
        }
        if (!attrs.get().isRegularFile()) {
            throw StorageException.badInput(
                    "refusing OVF '%s': its disk '%s' is %s, not a regular file",
                    VolumeId.printable(volid),
                    VolumeId.printable(disk.file()),
                    attrs.get().isSymbolicLink() ? "a symbolic link" : "something else");
        }
        String volname = "import/" + disk.file();
        if (!diskVolume(volname, false)) {
            throw StorageException.badInput(
                    "OVF '%s' names the disk '%s', which is no import image (.qcow2, .raw or .vmdk)",
                    VolumeId.printable(volid), VolumeId.printable(disk.file()));
        }
        return ImportMetadata.Disk.of(new VolumeId(storeid, volname), null);
    }

    /** Whether {@code volname} is a disk image of import content: in an OVA ({@code ova+<format>}) or a file of its own. */
    private static boolean diskVolume(String volname, boolean inOva) {
        try {
            VolumeName name = DirVolumeNames.parse(volname);
            String format = name.format();
            return inOva
                    ? format.startsWith("ova+")
                    : name.type() == ContentType.IMPORT && !format.equals("ova") && !format.equals("ovf");
        } catch (StorageException e) {
            return false;
        }
    }

    private static byte[] read(FileChannel ch, long offset, int size) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(size);
        while (b.hasRemaining()) {
            if (ch.read(b, offset + b.position()) < 0) {
                throw new IOException("the file ended at byte " + (offset + b.position()));
            }
        }
        return b.array();
    }
}
