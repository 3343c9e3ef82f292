package dev.vsm.api;

/**
 * One backup as {@link VsmStorage#pruneBackups} marked it (pve's prune list item). A final class,
 * not a record, so that it can gain a field.
 */
public final class PruneMark {
    private final String volid;
    private final Long ctime;
    private final String mark;
    private final String type;
    private final Integer vmid;

    PruneMark(String volid, Long ctime, String mark, String type, Integer vmid) {
        this.volid = volid;
        this.ctime = ctime;
        this.mark = mark;
        this.type = type;
        this.vmid = vmid;
    }

    /** The backup's volume id. */
    public String volid() {
        return volid;
    }

    /** When it was made, in seconds since the epoch, or null when unknown. */
    public Long ctime() {
        return ctime;
    }

    /** {@code keep}, {@code remove}, {@code protected} or {@code renamed}. */
    public String mark() {
        return mark;
    }

    /** Its guest's type: {@code qemu}, {@code lxc}, {@code openvz} or {@code unknown}. */
    public String type() {
        return type;
    }

    /** Its guest, or null. */
    public Integer vmid() {
        return vmid;
    }

    @Override
    public String toString() {
        return volid + " " + mark;
    }
}
