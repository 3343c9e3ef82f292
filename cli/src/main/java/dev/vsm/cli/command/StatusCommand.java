package dev.vsm.cli.command;

import dev.vsm.cli.support.TextColumns;
import dev.vsm.engine.StatusFilter;
import dev.vsm.engine.StorageManager.StatusRow;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeFormat;
import dev.vsm.spi.VolumeId;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vsm status}: every storage's type, state and capacity (pvesm's columns). */
@Command(name = "status", description = "Show the status of all storages (or one).")
public final class StatusCommand extends VsmCommand {
    @Option(names = "--storage", paramLabel = "ID", description = "only this storage")
    String storage;

    @Option(
            names = "--content",
            paramLabel = "TYPES",
            description = "only enabled storages holding one of these content types (comma-separated)")
    String content;

    @Option(names = "--enabled", description = "only storages not disabled in the configuration")
    boolean enabled;

    @Option(
            names = "--target",
            paramLabel = "NODE",
            description = "another node: only shared storages available on this node and on it")
    String target;

    @Option(
            names = "--format",
            description = "give each enabled storage's supported and default formats (JSON/YAML output)")
    boolean formats;

    @Override
    void execute() {
        List<StatusRow> rows = session()
                .manager()
                .status(StatusFilter.ALL
                        .storage(storage)
                        .content(content == null ? null : contentList(content))
                        .enabledOnly(enabled)
                        .target(target));
        rows.forEach(r ->
                r.status().warnings().forEach(w -> session().context().console().warn("warning: " + w)));
        output.print(
                out(),
                // the JSON rows (and the configuration's digest in each) only when they are printed
                output.isText() ? List.of() : jsonRows(rows, session().config().digest()),
                o -> o.print(table(rows)));
    }

    private List<Map<String, Object>> jsonRows(List<StatusRow> rows, String digest) {
        return rows.stream()
                .map(r -> withFormats(withDigest(json(r), digest), r))
                .toList();
    }

    /** pvesm's table: {@code printf("%-<w>s %10s %10s %15d %15d %15d %s\n")}, w the longest name + 1. */
    static String table(List<StatusRow> rows) {
        int w = rows.stream().mapToInt(r -> r.storage().length()).max().orElse(0) + 1;
        StringBuilder table = new StringBuilder(96 * (rows.size() + 1));
        row(table, w, "Name", "Type", "Status", "Total (KiB)", "Used (KiB)", "Available (KiB)", "%");
        for (StatusRow r : rows) {
            String state = !r.enabled() ? "disabled" : r.status().active() ? "active" : "inactive";
            row(
                    table,
                    w,
                    r.storage(),
                    r.type(),
                    state,
                    Long.toString(r.status().total() / 1024),
                    Long.toString(r.status().used() / 1024),
                    Long.toString(r.status().avail() / 1024),
                    r.enabled() ? percentColumn(percent(r)) : "N/A");
        }
        return table.toString();
    }

    private static void row(
            StringBuilder table,
            int w,
            String name,
            String type,
            String state,
            String total,
            String used,
            String avail,
            String pct) {
        TextColumns.left(table, name, w).append(' ');
        TextColumns.right(table, type, 10).append(' ');
        TextColumns.right(table, state, 10).append(' ');
        TextColumns.right(table, total, 15).append(' ');
        TextColumns.right(table, used, 15).append(' ');
        TextColumns.right(table, avail, 15).append(' ');
        TextColumns.right(table, pct, 8).append(System.lineSeparator());
    }

    /**
     * {@code String.format("% 7.2f%%", percent)}: the formatter rounds the shortest decimal form
     * of the double half up, which is what BigDecimal does here, without the locale's number data.
     */
    static String percentColumn(double percent) {
        String digits = new BigDecimal(Double.toString(percent))
                .setScale(2, RoundingMode.HALF_UP)
                .toPlainString();
        StringBuilder column = new StringBuilder(9);
        if (!digits.startsWith("-")) {
            column.append(' ');
        }
        return TextColumns.right(column, digits, 7 - column.length())
                .append('%')
                .toString();
    }

    /** pve's {@code pve-storage-content-list}: content types, comma-separated. */
    static Set<ContentType> contentList(String text) {
        Set<ContentType> types = EnumSet.noneOf(ContentType.class);
        for (String id : text.strip().split("[,;\\s]+")) {
            types.add(ContentType.fromId(id)
                    .orElseThrow(() -> StorageException.badInput(
                            "content: invalid content type '%s' (use images, rootdir, iso, vztmpl, backup, snippets, import; comma-separated)",
                            VolumeId.printable(id))));
        }
        return types;
    }

    /** {@code --format}: pve's {@code formats} (and its deprecated {@code format} pair) for enabled storages. */
    private Map<String, Object> withFormats(Map<String, Object> row, StatusRow r) {
        if (formats && r.enabled()) {
            List<String> supported = session().manager().formats(r.storage()).stream()
                    .map(VolumeFormat::id)
                    .sorted()
                    .toList();
            String dflt = session().manager().defaultFormat(r.storage()).id();
            row.put("formats", Map.of("supported", supported, "default", dflt));
            Map<String, Integer> valid = new TreeMap<>();
            supported.forEach(f -> valid.put(f, 1));
            row.put("format", List.of(valid, dflt));
        }
        return row;
    }

    private static double percent(StatusRow r) {
        return r.status().total() == 0
                ? 0
                : r.status().used() * 100.0 / r.status().total();
    }

    /** pve's storage index gives every entry the configuration's digest, for a later {@code set --digest}. */
    private static Map<String, Object> withDigest(Map<String, Object> row, String digest) {
        row.put("digest", digest);
        return row;
    }

    static Map<String, Object> json(StatusRow r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("storage", r.storage());
        m.put("type", r.type());
        m.put("content", r.content().stream().map(ContentType::id).sorted().collect(Collectors.joining(",")));
        m.put("active", r.status().active() ? 1 : 0);
        m.put("enabled", r.enabled() ? 1 : 0);
        m.put("shared", r.shared() ? 1 : 0);
        m.put("total", r.status().total());
        m.put("used", r.status().used());
        m.put("avail", r.status().avail());
        m.put(
                "used_fraction",
                r.status().total() == 0
                        ? 0.0
                        : (double) r.status().used() / r.status().total());
        if (r.status().metadata() != null) {
            m.put("metadata_used", r.status().metadata().used());
            m.put("metadata_size", r.status().metadata().size());
        }
        m.put("warnings", r.status().warnings());
        return m;
    }
}
