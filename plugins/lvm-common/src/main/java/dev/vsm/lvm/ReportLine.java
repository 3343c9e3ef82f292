package dev.vsm.lvm;

import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One line of an lvm2 report made with {@code --separator : --noheadings --nosuffix}: the
 * fields, each trimmed. Lines are indented and may carry stray spaces around fields; a report
 * from an older lvm2 (or one that ran into trouble) may lack trailing columns, which then read as
 * empty.
 */
final class ReportLine {
    /** The characters lvm2 allows in VG and LV names; anything else is not a report line (a warning). */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9+_.-]+");

    private final List<String> fields;

    private ReportLine(List<String> fields) {
        this.fields = fields;
    }

    /** Splits a line on {@code :}, keeping empty fields. */
    static ReportLine parse(String line) {
        return new ReportLine(
                Arrays.stream(line.strip().split(":", -1)).map(String::strip).toList());
    }

    /** A line of the given (already trimmed) fields. */
    static ReportLine of(List<String> fields) {
        return new ReportLine(List.copyOf(fields));
    }

    /** Whether the line has the shape of a report line at all (warnings printed to stdout do not). */
    static boolean looksLikeReport(String line) {
        return line.indexOf(':') >= 0;
    }

    int size() {
        return fields.size();
    }

    List<String> fields() {
        return fields;
    }

    /** Field {@code i}, or {@code ""} when the line is shorter. */
    String text(int i) {
        return i < fields.size() ? fields.get(i) : "";
    }

    /** Field {@code i} if it is a VG or LV name as lvm2 allows them, else {@code ""}. */
    String name(int i) {
        String s = text(i);
        return NAME.matcher(s).matches() ? s : "";
    }

    /** Field {@code i} as a whole number that must be there; null when empty, missing or not a number. */
    Long requiredNumber(int i) {
        return text(i).isEmpty() ? null : number(i);
    }

    /** Field {@code i} as a whole number; 0 when empty or missing, null when it is not a number. */
    Long number(int i) {
        String s = text(i);
        if (s.isEmpty()) {
            return 0L;
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            // some lvm2 versions print sizes as "4194304.00" even with --units b
            try {
                return (long) Double.parseDouble(s);
            } catch (NumberFormatException e2) {
                return null;
            }
        }
    }

    /** Field {@code i} as a percentage; 0 when empty, missing or not a number (pve's {@code ||= 0}). */
    double percent(int i) {
        String s = text(i);
        if (s.isEmpty()) {
            return 0;
        }
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
