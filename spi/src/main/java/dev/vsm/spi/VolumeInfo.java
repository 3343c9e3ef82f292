package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

/**
 * One entry of a storage's volume listing (pve's {@code list_volumes} item).
 *
 * @param volid       the volume id, {@code storeid:volname}
 * @param format      raw, qcow2, iso, tzst, vma.zst, ...
 * @param content     the content type it is listed under
 * @param size        virtual size in bytes
 * @param approximate true when {@code size} is only an estimate (pve's {@code approximate-size})
 * @param used        bytes allocated on the host, or null when unknown
 * @param vmid        the owner, or null
 * @param ctime       creation/change time, seconds since the epoch, or null
 * @param parent      the backing file of a linked clone, or null
 * @param backup      for a backup archive, its subtype, notes and protection; else null
 */
public record VolumeInfo(String volid, String format, ContentType content, long size, boolean approximate,
                         Long used, Integer vmid, Long ctime, String parent, BackupDetails backup) {
    public VolumeInfo {
        requireNonNull(volid, "volid");
        requireNonNull(format, "format");
        requireNonNull(content, "content");
    }

    /** An entry that is not a backup archive. */
    public VolumeInfo(String volid, String format, ContentType content, long size, boolean approximate,
                      Long used, Integer vmid, Long ctime, String parent) {
        this(volid, format, content, size, approximate, used, vmid, ctime, parent, null);
    }

    public VolumeInfo withContent(ContentType newContent) {
        return new VolumeInfo(volid, format, newContent, size, approximate, used, vmid, ctime, parent, backup);
    }
}
