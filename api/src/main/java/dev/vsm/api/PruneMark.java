package dev.vsm.api;

/**
 * One backup as {@link VsmStorage#pruneBackups} marked it (pve's prune list item).
 *
 * @param volid the backup
 * @param ctime when it was made, in seconds since the epoch, or null when unknown
 * @param mark  {@code keep}, {@code remove}, {@code protected} or {@code renamed}
 * @param type  its guest's type: {@code qemu}, {@code lxc}, {@code openvz} or {@code unknown}
 * @param vmid  its guest, or null
 */
public record PruneMark(String volid, Long ctime, String mark, String type, Integer vmid) {}
