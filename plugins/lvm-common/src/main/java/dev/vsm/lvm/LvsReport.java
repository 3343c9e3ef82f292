package dev.vsm.lvm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The logical volumes of an {@code lvs} report made by {@link LvmCommands#lvs(String)}, in the
 * order lvm2 printed them.
 *
 * <p>Parsing is forgiving: fields are trimmed; a line without a valid VG or LV name or a size is skipped (pve
 * does the same); missing trailing columns read as empty (percentages and metadata size 0, no
 * creation time, unmapped); a line whose size is not a number (a warning printed to
 * stdout) is skipped. LVM tags may contain {@code :}, the separator: when a line has more fields
 * than columns, the extra ones belong to the tags column, the only free-text column before the
 * last three.
 */
public final class LvsReport {
    private static final int COLUMNS = LvmCommands.LVS_COLUMNS.size();
    private static final int TAGS = LvmCommands.LVS_COLUMNS.indexOf("tags");

    private final List<LogicalVolume> volumes;

    private LvsReport(List<LogicalVolume> volumes) {
        this.volumes = List.copyOf(volumes);
    }

    /** Parses the standard output of an {@code lvs} report. */
    public static LvsReport parse(String stdout) {
        List<LogicalVolume> volumes = new ArrayList<>();
        for (String raw : stdout.split("\n")) {
            if (!ReportLine.looksLikeReport(raw)) {
                continue;
            }
            ReportLine line = rejoinTags(ReportLine.parse(raw));
            String vg = line.name(0);
            String name = line.name(1);
            Long size = line.requiredNumber(2);
            if (vg.isEmpty() || name.isEmpty() || size == null) {
                continue;
            }
            Long metadataSize = line.number(10);
            String time = line.text(11);
            Long ctime = time.isEmpty() ? null : line.number(11);
            volumes.add(new LogicalVolume(
                    vg,
                    name,
                    size,
                    line.text(3),
                    line.text(4),
                    line.percent(5),
                    line.percent(6),
                    line.percent(7),
                    line.text(8),
                    tags(line.text(TAGS)),
                    metadataSize == null ? 0 : metadataSize,
                    ctime,
                    line.text(12).equals("active")));
        }
        return new LvsReport(volumes);
    }

    /** A line with more fields than columns: the tags held separators; put them back together. */
    private static ReportLine rejoinTags(ReportLine line) {
        if (line.size() <= COLUMNS) {
            return line;
        }
        List<String> f = line.fields();
        int extra = f.size() - COLUMNS;
        List<String> fixed = new ArrayList<>(f.subList(0, TAGS));
        fixed.add(String.join(":", f.subList(TAGS, TAGS + extra + 1)));
        fixed.addAll(f.subList(TAGS + extra + 1, f.size()));
        return ReportLine.of(fixed);
    }

    private static List<String> tags(String text) {
        if (text.isEmpty()) {
            return List.of();
        }
        return Arrays.stream(text.split(","))
                .map(String::strip)
                .filter(t -> !t.isEmpty())
                .toList();
    }

    /** Every LV of the report. */
    public List<LogicalVolume> volumes() {
        return volumes;
    }

    /** The LVs of one volume group. */
    public List<LogicalVolume> inGroup(String vg) {
        return volumes.stream().filter(v -> v.vg().equals(vg)).toList();
    }

    /** One LV by group and name. */
    public Optional<LogicalVolume> find(String vg, String name) {
        return volumes.stream()
                .filter(v -> v.vg().equals(vg) && v.name().equals(name))
                .findFirst();
    }

    /** The thin pools of one group (pve's {@code list_thinpools}), in report order. */
    public List<LogicalVolume> thinPools(String vg) {
        return inGroup(vg).stream().filter(LogicalVolume::isThinPool).toList();
    }

    /** The names of every LV of one group (for the next free disk name). */
    public List<String> names(String vg) {
        return inGroup(vg).stream().map(LogicalVolume::name).toList();
    }
}
