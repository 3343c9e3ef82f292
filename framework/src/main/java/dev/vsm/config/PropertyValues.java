package dev.vsm.config;

import dev.vsm.config.RawValue.Kind;
import dev.vsm.config.RawValue.Scalar;
import dev.vsm.spi.CommonProperties;
import dev.vsm.spi.ContentType;
import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Turns a {@link RawValue} into the typed value a {@link PropertySpec} asks for, with pve's
 * wording for what is wrong:
 *
 * <ul>
 *   <li>BOOLEAN: a YAML boolean, or one of {@code 1 0 yes no on off true false} (any case) → {@code Boolean}</li>
 *   <li>INTEGER: an integer or a string of digits, one of {@code allowed} if given → {@code Long}</li>
 *   <li>NUMBER: an integer or decimal number → {@code Double}</li>
 *   <li>ENUM: one of {@code allowed} → {@code String}</li>
 *   <li>STRING: any scalar, as written, matching {@code pattern} if given → {@code String}</li>
 *   <li>LIST: a sequence, or a string split at commas, semicolons and white space; each element
 *       checked against {@code allowed} and {@code pattern}; duplicates dropped → {@code List<String>}.
 *       {@code content} follows pve's content rules instead (see {@link #content}).</li>
 * </ul>
 *
 * A value may not contain control characters (pve refuses line feeds in storage.cfg).
 */
final class PropertyValues {
    private static final Pattern INTEGER = Pattern.compile("[-+]?[0-9]+");
    private static final Pattern NUMBER = Pattern.compile("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
    private static final Pattern LIST_SEPARATORS = Pattern.compile("[,;\\s]+");
    private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();
    static final String BWLIMIT = "bwlimit";
    static final String MAX_PROTECTED_BACKUPS = "max-protected-backups";
    private static final Map<String, PropertyString.Key> BWLIMIT_FORMAT = Map.of(
            "default",
            PropertyString.Key.number(0),
            "restore",
            PropertyString.Key.number(0),
            "migration",
            PropertyString.Key.number(0),
            "clone",
            PropertyString.Key.number(0),
            "move",
            PropertyString.Key.number(0));

    private PropertyValues() {}

    /** A {@code bwlimit} value's limits by key (KiB/s). */
    static Map<String, Number> bwlimit(String text) {
        return PropertyString.parse(text, BWLIMIT_FORMAT);
    }

    /** Why a value was refused, and where (the line of the offending element when known). */
    static final class BadValue extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int line;

        BadValue(String message, int line) {
            super(message, null, false, false);
            this.line = line;
        }

        int line() {
            return line;
        }
    }

    /** The typed value of {@code raw} for {@code spec}, or a {@link BadValue}. */
    static Object convert(PropertySpec spec, RawValue raw, PluginSchema schema) {
        if (spec.name().equals(CommonProperties.CONTENT) && spec.type() == PropertySpec.PropertyType.LIST) {
            return content(raw, schema);
        }
        Object value = switch (spec.type()) {
            case BOOLEAN -> bool(scalar(raw, "boolean"));
            case INTEGER -> integer(spec, scalar(raw, "integer"));
            case NUMBER -> number(spec, scalar(raw, "number"));
            case ENUM -> oneOf(spec.allowed(), scalar(raw, "string").text(), raw.line());
            case STRING -> string(spec, scalar(raw, "string"));
            case LIST -> list(spec, raw);
        };
        checkFormat(spec.name(), value, raw.line());
        return value;
    }

    /**
     * pve's formats of the properties that have one: {@code prune-backups} ({@link PruneOptions}),
     * {@code bwlimit} ({@code default}, {@code restore}, {@code migration}, {@code clone}, {@code move}
     * {@code =<KiB/s>}, numbers at least 0), {@code max-protected-backups} (an integer at least -1).
     */
    private static void checkFormat(String name, Object value, int line) {
        if (name.equals(MAX_PROTECTED_BACKUPS) && value instanceof Long n && n < -1) {
            throw new BadValue("value must have a minimum value of -1", line);
        }
        if (!(value instanceof String text)) {
            return;
        }
        try {
            if (name.equals(PruneOptions.PROPERTY)) {
                PruneOptions.parse(text);
            } else if (name.equals(BWLIMIT)) {
                PropertyString.parse(text, BWLIMIT_FORMAT);
            }
        } catch (StorageException e) {
            throw new BadValue("invalid format - " + e.getMessage(), line);
        }
    }

    private static Scalar scalar(RawValue raw, String type) {
        if (raw instanceof Scalar s) {
            if (s.kind() == Kind.NULL) {
                throw new BadValue("no value given (write the value after the colon, or remove the key)", s.line());
            }
            if (s.kind() == Kind.OTHER_TAG) {
                throw new BadValue(
                        "unsupported YAML tag '" + VolumeId.printable(s.tag()) + "' (write a plain value)", s.line());
            }
            checkPrintable(s.text(), s.line());
            return s;
        }
        String got = raw instanceof RawValue.Sequence ? "a list" : "a mapping";
        throw new BadValue("type check ('" + type + "') failed - got " + got, raw.line());
    }

    private static Boolean bool(Scalar s) {
        return PveBoolean.parse(s.text()).orElseThrow(() -> typeCheck("boolean", s));
    }

    private static Long integer(PropertySpec spec, Scalar s) {
        long value;
        if (s.kind() == Kind.INTEGER && !INTEGER.matcher(s.text()).matches()) {
            value = yamlInteger(s);
        } else if (INTEGER.matcher(s.text()).matches()) {
            try {
                value = Long.parseLong(s.text().startsWith("+") ? s.text().substring(1) : s.text());
            } catch (NumberFormatException e) {
                throw new BadValue("value '" + s.text() + "' is out of range for an integer", s.line());
            }
        } else {
            throw typeCheck("integer", s);
        }
        if (!spec.allowed().isEmpty()) {
            oneOf(spec.allowed(), Long.toString(value), s.line());
        }
        return value;
    }

    /** The YAML 1.2 core forms {@code 0x1f} and {@code 0o17}. */
    private static long yamlInteger(Scalar s) {
        String t = s.text();
        try {
            if (t.startsWith("0x")) {
                return Long.parseLong(t.substring(2), 16);
            }
            if (t.startsWith("0o")) {
                return Long.parseLong(t.substring(2), 8);
            }
        } catch (NumberFormatException e) {
            throw new BadValue("value '" + t + "' is out of range for an integer", s.line());
        }
        throw typeCheck("integer", s);
    }

    private static Double number(PropertySpec spec, Scalar s) {
        if (!NUMBER.matcher(s.text()).matches()) {
            throw typeCheck("number", s);
        }
        checkPattern(spec, s.text(), s.line());
        double value = Double.parseDouble(s.text());
        if (Double.isInfinite(value)) {
            throw new BadValue("value '" + s.text() + "' is out of range for a number", s.line());
        }
        return value;
    }

    private static String string(PropertySpec spec, Scalar s) {
        checkPattern(spec, s.text(), s.line());
        return s.text();
    }

    private static String oneOf(List<String> allowed, String value, int line) {
        if (!allowed.isEmpty() && !allowed.contains(value)) {
            throw new BadValue(
                    "value '" + VolumeId.printable(value) + "' does not have a value in the enumeration '"
                            + String.join(", ", allowed) + "'",
                    line);
        }
        return value;
    }

    private static List<String> list(PropertySpec spec, RawValue raw) {
        List<String> result = new ArrayList<>();
        for (Scalar item : elements(raw)) {
            oneOf(spec.allowed(), item.text(), item.line());
            checkPattern(spec, item.text(), item.line());
            if (!result.contains(item.text())) {
                result.add(item.text());
            }
        }
        return List.copyOf(result);
    }

    /** The elements of a list value: a sequence of scalars, or one string split at {@code , ; } and white space. */
    private static List<Scalar> elements(RawValue raw) {
        List<Scalar> items = new ArrayList<>();
        if (raw instanceof RawValue.Sequence seq) {
            for (RawValue item : seq.items()) {
                if (!(item instanceof Scalar)) {
                    throw new BadValue(
                            "type check ('list') failed - got a nested "
                                    + (item instanceof RawValue.Sequence ? "list" : "mapping"),
                            item.line() > 0 ? item.line() : raw.line());
                }
                items.add(scalar(item, "string"));
            }
            return items;
        }
        Scalar s = scalar(raw, "list");
        for (String part : splitList(s.text())) {
            items.add(new Scalar(part, Kind.STRING, null, s.line()));
        }
        return items;
    }

    /** pve's {@code split_list}: the non-empty parts of {@code text} between commas, semicolons and white space. */
    static List<String> splitList(String text) {
        return LIST_SEPARATORS
                .splitAsStream(text)
                .filter(part -> !part.isEmpty())
                .toList();
    }

    /**
     * pve's content rules (Plugin.pm decode_value, pve-storage-content): every entry must be a
     * content type ({@code invalid content type '<ct>'}) the storage type supports
     * ({@code storage does not support content type '<ct>'}); {@code none} stands alone
     * ({@code unable to combine 'none' with other content types}); an empty list means
     * {@code none}, which the type must support. Unlike pve, unsupported types are an error,
     * not a warning with the entry dropped.
     */
    static List<String> content(RawValue raw, PluginSchema schema) {
        Set<String> ids = new LinkedHashSet<>();
        for (Scalar item : elements(raw)) {
            Optional<ContentType> type = ContentType.fromId(item.text());
            if (type.isEmpty()) {
                throw new BadValue("invalid content type '" + VolumeId.printable(item.text()) + "'", item.line());
            }
            if (!schema.content().contains(type.get())) {
                throw new BadValue(
                        "storage does not support content type '" + type.get().id() + "'", item.line());
            }
            ids.add(type.get().id());
        }
        if (ids.size() > 1 && ids.contains(ContentType.NONE.id())) {
            throw new BadValue("unable to combine 'none' with other content types", raw.line());
        }
        if (ids.isEmpty()) {
            if (!schema.content().contains(ContentType.NONE)) {
                throw new BadValue("storage does not support content type 'none'", raw.line());
            }
            ids.add(ContentType.NONE.id());
        }
        return List.copyOf(ids);
    }

    private static void checkPattern(PropertySpec spec, String value, int line) {
        if (spec.pattern() != null
                && !PATTERNS.computeIfAbsent(spec.pattern(), Pattern::compile)
                        .matcher(value)
                        .matches()) {
            throw new BadValue(
                    "value '" + VolumeId.printable(value) + "' does not match the regex pattern '" + spec.pattern()
                            + "'",
                    line);
        }
    }

    private static void checkPrintable(String text, int line) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw new BadValue("value '" + VolumeId.printable(text) + "' contains a control character", line);
            }
        }
    }

    private static BadValue typeCheck(String type, Scalar s) {
        return new BadValue(
                "type check ('" + type + "') failed - got '" + VolumeId.printable(s.text()) + "'", s.line());
    }
}
