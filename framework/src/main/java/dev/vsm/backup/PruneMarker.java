package dev.vsm.backup;

import dev.vsm.config.PruneOptions;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.IsoFields;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Marks one backup group (the backups of one guest type and owner) keep or remove from retention
 * options (pve's {@code prune_mark_backup_group}). The options are applied from the shortest
 * period on, {@code keep-last} first; each keeps the newest backup of each of its last N periods
 * (hour, day, ISO week, month, year in {@code zone}) that no earlier option already covered.
 * Entries already marked (protected) keep their mark. Without a positive option, or with
 * {@code keep-all}, everything is kept.
 */
public final class PruneMarker {
    private PruneMarker() {}

    /**
     * @param group the group's entries, marked in place
     * @param keep  the retention options ({@code keep-last}, ..., {@code keep-yearly}, {@code keep-all}),
     *              as {@link PruneOptions#parse} gives them
     */
    public static void markGroup(List<PruneEntry> group, Map<String, Long> keep, ZoneId zone) {
        boolean anyPositive =
                keep.entrySet().stream().anyMatch(e -> !e.getKey().equals(PruneOptions.KEEP_ALL) && e.getValue() > 0);
        if (keep.getOrDefault(PruneOptions.KEEP_ALL, 0L) > 0 || !anyPositive) {
            for (PruneEntry e : group) {
                if (e.mark() == null || e.mark().equals(PruneEntry.REMOVE)) {
                    e.mark(PruneEntry.KEEP);
                }
            }
            return;
        }
        List<PruneEntry> newestFirst = new ArrayList<>(group);
        newestFirst.sort(Comparator.comparing(PruneEntry::ctime, Comparator.nullsFirst(Comparator.naturalOrder()))
                .reversed());
        mark(newestFirst, keep.get("keep-last"), t -> t);
        mark(newestFirst, keep.get("keep-hourly"), t -> {
            ZonedDateTime d = local(t, zone);
            return List.of(d.getHour(), d.getDayOfMonth(), d.getMonthValue(), d.getYear());
        });
        mark(newestFirst, keep.get("keep-daily"), t -> {
            ZonedDateTime d = local(t, zone);
            return List.of(d.getDayOfMonth(), d.getMonthValue(), d.getYear());
        });
        mark(newestFirst, keep.get("keep-weekly"), t -> {
            ZonedDateTime d = local(t, zone);
            return List.of(d.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR), d.get(IsoFields.WEEK_BASED_YEAR));
        });
        mark(newestFirst, keep.get("keep-monthly"), t -> {
            ZonedDateTime d = local(t, zone);
            return List.of(d.getMonthValue(), d.getYear());
        });
        mark(newestFirst, keep.get("keep-yearly"), t -> local(t, zone).getYear());
        for (PruneEntry e : newestFirst) {
            if (e.mark() == null) {
                e.mark(PruneEntry.REMOVE);
            }
        }
    }

    private static ZonedDateTime local(long epochSecond, ZoneId zone) {
        return Instant.ofEpochSecond(epochSecond).atZone(zone);
    }

    /** pve's {@code $prune_mark}: keeps the first (newest) entry of each of the next {@code count} periods not yet covered. */
    private static void mark(List<PruneEntry> newestFirst, Long count, Function<Long, Object> period) {
        if (count == null || count <= 0) {
            return;
        }
        Set<Object> alreadyIncluded = new HashSet<>();
        for (PruneEntry e : newestFirst) {
            if (PruneEntry.KEEP.equals(e.mark())) {
                alreadyIncluded.add(period.apply(ctime(e)));
            }
        }
        Set<Object> newlyIncluded = new HashSet<>();
        for (PruneEntry e : newestFirst) {
            Object id = period.apply(ctime(e));
            if (e.mark() != null || alreadyIncluded.contains(id)) {
                continue;
            }
            if (!newlyIncluded.contains(id)) {
                if (newlyIncluded.size() >= count) {
                    break;
                }
                newlyIncluded.add(id);
                e.mark(PruneEntry.KEEP);
            } else {
                e.mark(PruneEntry.REMOVE);
            }
        }
    }

    private static long ctime(PruneEntry e) {
        return e.ctime() == null ? 0 : e.ctime();
    }
}
