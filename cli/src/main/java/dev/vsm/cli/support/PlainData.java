package dev.vsm.cli.support;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What commands hand to {@link OutputOptions} for the machine formats: maps (in their order),
 * collections (lists, sets; not other iterables, such as a {@code Path}), arrays, strings, numbers,
 * booleans, enum constants (written by name) and nulls, nothing else. JSON is written with
 * jackson-core's streaming generator, as jackson-databind's {@code ObjectMapper} wrote it: the
 * mapper (about 450 classes more, its serializers found by introspection) cost every
 * {@code --output-format json} about 40 ms of start-up for data that needs no introspection, and
 * its classes made the class-data sharing archive that every command maps a fifth larger.
 */
final class PlainData {
    private static final JsonFactory JSON = new JsonFactory();

    private PlainData() {}

    /** {@code data} as JSON text, indented by jackson's default pretty printer when {@code pretty}. */
    static String json(Object data, boolean pretty) {
        StringWriter text = new StringWriter(256);
        try (JsonGenerator g = JSON.createGenerator(text)) {
            if (pretty) {
                g.useDefaultPrettyPrinter();
            }
            write(g, data);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot render JSON", e);
        }
        return text.toString();
    }

    /** {@code data} with maps as {@link LinkedHashMap}s, collections as lists and enum constants as their names (for YAML). */
    static Object plain(Object data) {
        if (data instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                copy.put(key(e.getKey()), plain(e.getValue()));
            }
            return copy;
        }
        if (data instanceof Collection<?> || data instanceof Object[]) {
            List<Object> copy = new ArrayList<>();
            for (Object item : items(data)) {
                copy.add(plain(item));
            }
            return copy;
        }
        if (data instanceof Enum<?> constant) {
            return constant.name();
        }
        return scalar(data);
    }

    private static void write(JsonGenerator g, Object data) throws IOException {
        if (data instanceof Map<?, ?> map) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                g.writeFieldName(key(e.getKey()));
                write(g, e.getValue());
            }
            g.writeEndObject();
        } else if (data instanceof Collection<?> || data instanceof Object[]) {
            g.writeStartArray();
            for (Object item : items(data)) {
                write(g, item);
            }
            g.writeEndArray();
        } else if (data instanceof Enum<?> constant) {
            g.writeString(constant.name());
        } else {
            Object value = scalar(data);
            if (value == null) {
                g.writeNull();
            } else if (value instanceof String s) {
                g.writeString(s);
            } else if (value instanceof Boolean b) {
                g.writeBoolean(b);
            } else if (value instanceof Double d) {
                g.writeNumber(d);
            } else if (value instanceof Float f) {
                g.writeNumber(f);
            } else if (value instanceof BigDecimal d) {
                g.writeNumber(d);
            } else if (value instanceof BigInteger i) {
                g.writeNumber(i);
            } else {
                g.writeNumber(((Number) value).longValue());
            }
        }
    }

    private static Iterable<?> items(Object list) {
        return list instanceof Object[] array ? Arrays.asList(array) : (Collection<?>) list;
    }

    private static String key(Object key) {
        if (key instanceof String s) {
            return s;
        }
        throw new IllegalArgumentException("vsm's output: a map key that is not a string: " + describe(key));
    }

    /** A scalar as it is, failing on any other object: an output a command was not written to give. */
    private static Object scalar(Object value) {
        if (value == null
                || value instanceof String
                || value instanceof Boolean
                || value instanceof Integer
                || value instanceof Long
                || value instanceof Short
                || value instanceof Byte
                || value instanceof Double
                || value instanceof Float
                || value instanceof BigDecimal
                || value instanceof BigInteger) {
            return value;
        }
        throw new IllegalArgumentException("vsm's output: not plain data: " + describe(value));
    }

    private static String describe(Object value) {
        return value == null ? "null" : value.getClass().getName();
    }
}
