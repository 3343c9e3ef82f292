package dev.vsm.lvm;

import dev.vsm.lvm.VolumeGroup.PhysicalVolume;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The volume groups of a {@code vgs} report ({@link LvmCommands#vgs()} or
 * {@link LvmCommands#vgsWithPvs()}), in the order lvm2 printed them.
 *
 * <p>Parsing is forgiving, as pve's is: fields are trimmed, missing trailing columns (after the sizes) count as 0,
 * and lines that are not report lines (no {@code :}, no name, sizes that are not numbers) are
 * skipped. With PV columns, a group printed on several lines (one per PV) becomes one group
 * holding all its PVs.
 */
public final class VgsReport {
    private final Map<String, VolumeGroup> groups;

    private VgsReport(Map<String, VolumeGroup> groups) {
        this.groups = Collections.unmodifiableMap(groups);
    }

    /** Parses the standard output of a {@code vgs} report. */
    public static VgsReport parse(String stdout) {
        Map<String, Builder> builders = new LinkedHashMap<>();
        for (String raw : stdout.split("\n")) {
            if (!ReportLine.looksLikeReport(raw)) {
                continue;
            }
            ReportLine line = ReportLine.parse(raw);
            String name = line.name(0);
            Long size = line.requiredNumber(1);
            Long free = line.requiredNumber(2);
            Long lvCount = line.number(3);
            if (name.isEmpty() || size == null || free == null || lvCount == null) {
                continue;
            }
            Builder b = builders.computeIfAbsent(name, n -> new Builder(size, free, lvCount));
            String pvName = line.text(4);
            Long pvSize = line.number(5);
            Long pvFree = line.number(6);
            if (!pvName.isEmpty() && pvSize != null && pvFree != null) {
                b.pvs.add(new PhysicalVolume(pvName, pvSize, pvFree));
            }
        }
        Map<String, VolumeGroup> groups = new LinkedHashMap<>();
        builders.forEach((name, b) -> groups.put(name, new VolumeGroup(name, b.size, b.free, b.lvCount, b.pvs)));
        return new VgsReport(groups);
    }

    /** An empty report: no volume group was found (or vgs could not be run). */
    public static VgsReport empty() {
        return new VgsReport(new LinkedHashMap<>());
    }

    public Optional<VolumeGroup> group(String name) {
        return Optional.ofNullable(groups.get(name));
    }

    /** Every group, in report order. */
    public List<VolumeGroup> groups() {
        return List.copyOf(groups.values());
    }

    private static final class Builder {
        final long size;
        final long free;
        final long lvCount;
        final List<PhysicalVolume> pvs = new ArrayList<>();

        Builder(long size, long free, long lvCount) {
            this.size = size;
            this.free = free;
            this.lvCount = lvCount;
        }
    }
}
