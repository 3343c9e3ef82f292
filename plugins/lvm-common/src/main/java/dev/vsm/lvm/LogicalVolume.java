package dev.vsm.lvm;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One logical volume as {@code lvs} reports it (pve's {@code lvm_list_volumes} entry).
 *
 * @param vg              the volume group
 * @param name            the LV name
 * @param size            its size in bytes
 * @param attr            the attribute string ({@code -wi-a-----}); see {@link #type()} and {@link #state()}
 * @param poolLv          for a thin volume, its pool; else empty
 * @param dataPercent     for a thin pool or volume, how full its data is (0 when not reported)
 * @param metadataPercent for a thin pool, how full its metadata is (0 when not reported)
 * @param snapPercent     for a snapshot, how full it is (0 when not reported)
 * @param uuid            the LV's UUID
 * @param tags            its tags ({@code pve-vm-100}, ...)
 * @param metadataSize    for a thin pool, its metadata size in bytes (0 otherwise)
 * @param ctime           creation time, seconds since the epoch, or null when not reported
 * @param mapped          whether lvm2 finds a device-mapper device of it ({@code lv_active}
 *                        {@code active}; not where activation is off or the host has no
 *                        device-mapper: {@code unknown} or empty)
 */
public record LogicalVolume(
        String vg,
        String name,
        long size,
        String attr,
        String poolLv,
        double dataPercent,
        double metadataPercent,
        double snapPercent,
        String uuid,
        List<String> tags,
        long metadataSize,
        Long ctime,
        boolean mapped) {
    public LogicalVolume {
        requireNonNull(vg, "vg");
        requireNonNull(name, "name");
        requireNonNull(attr, "attr");
        requireNonNull(poolLv, "poolLv");
        requireNonNull(uuid, "uuid");
        tags = List.copyOf(tags);
    }

    /** The same LV under another name (after an {@code lvrename}, which keeps the UUID). */
    public LogicalVolume withName(String newName) {
        return new LogicalVolume(
                vg,
                newName,
                size,
                attr,
                poolLv,
                dataPercent,
                metadataPercent,
                snapPercent,
                uuid,
                tags,
                metadataSize,
                ctime,
                mapped);
    }

    /**
     * The volume type, the first attribute character: {@code -} a plain volume, {@code t} a thin
     * pool, {@code V} a thin volume, {@code m}/{@code M} mirrored, {@code r}/{@code R} RAID, ...
     */
    public char type() {
        return attr.isEmpty() ? '?' : attr.charAt(0);
    }

    /** The state, the fifth attribute character: {@code a} active, {@code -} inactive, {@code X} unknown. */
    public char state() {
        return attr.length() > 4 ? attr.charAt(4) : '?';
    }

    /** Whether a process holds the LV's device open (the sixth attribute character, {@code o}): a running VM, say. */
    public boolean open() {
        return attr.length() > 5 && attr.charAt(5) == 'o';
    }

    public boolean active() {
        return state() == 'a';
    }

    /**
     * Whether the kernel has a device for this LV without a live table: state {@code d} (no
     * table), {@code i} (a table loaded, never resumed), or {@code X} (lvm2 could not read the
     * status of a device, as when it has none; on a host without device-mapper every LV reads
     * {@code X}, unmapped). A SIGKILL in lvm2's activation of a new LV, between its creating the
     * device and resuming its table, leaves this; {@code lvchange -ay} loads and resumes the table.
     */
    public boolean mappedWithoutLiveTable() {
        char state = state();
        return mapped && (state == 'd' || state == 'i' || state == 'X');
    }

    public boolean isThinPool() {
        return type() == 't';
    }

    /** For a thin pool, the bytes of data in use (pve: {@code int(data_percent * lv_size / 100)}). */
    public long used() {
        return (long) (dataPercent * size / 100);
    }

    /** For a thin pool, the bytes of metadata in use. */
    public long metadataUsed() {
        return (long) (metadataPercent * metadataSize / 100);
    }

    public boolean hasTag(String tag) {
        return tags.contains(tag);
    }
}
