package dev.vsm.backup;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One backup as pruning sees it (an item of pve's {@code prune_backups} result): its volume id,
 * time, guest type and owner, and its mark once marked.
 */
public final class PruneEntry {
    /** Kept by the retention options. */
    public static final String KEEP = "keep";
    /** Removed by the retention options. */
    public static final String REMOVE = "remove";
    /** Protected: never removed, whatever the options say. */
    public static final String PROTECTED = "protected";
    /** Not a standard vzdump name: pruning leaves it alone. */
    public static final String RENAMED = "renamed";

    private final String volid;
    private final Long ctime;
    private final String type;
    private final Integer vmid;
    private String mark;

    /**
     * @param ctime the backup time (seconds since the epoch), or null when unknown
     * @param type  {@code qemu}, {@code lxc}, {@code openvz} or {@code unknown}
     * @param vmid  the owner, or null
     */
    public PruneEntry(String volid, Long ctime, String type, Integer vmid) {
        this.volid = requireNonNull(volid, "volid");
        this.ctime = ctime;
        this.type = requireNonNull(type, "type");
        this.vmid = vmid;
    }

    public String volid() {
        return volid;
    }

    public Long ctime() {
        return ctime;
    }

    public String type() {
        return type;
    }

    public Integer vmid() {
        return vmid;
    }

    /** {@link #KEEP}, {@link #REMOVE}, {@link #PROTECTED}, {@link #RENAMED}, or null before marking. */
    public String mark() {
        return mark;
    }

    void mark(String value) {
        this.mark = value;
    }

    /** pve's API item: {@code volid, ctime, mark, type} and {@code vmid} when known. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("volid", volid);
        m.put("ctime", ctime);
        m.put("mark", mark);
        m.put("type", type);
        if (vmid != null) {
            m.put("vmid", vmid);
        }
        return m;
    }

    @Override
    public String toString() {
        return toMap().toString();
    }
}
