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
            write(g, plain(data));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot render JSON", e);
        }
        return text.toString();
    }

    /** {@code data} with maps as {@link LinkedHashMap}s, collections as lists and enum constants as their names: what JSON and YAML are written from. */
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

    /** Writes what {@link #plain} made: maps of strings, lists and scalars. */
    private static void write(JsonGenerator g, Object plain) throws IOException {
        if (plain instanceof Map<?, ?> map) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                g.writeFieldName((String) e.getKey());
                write(g, e.getValue());
            }
            g.writeEndObject();
        } else if (plain instanceof List<?> items) {
            g.writeStartArray();
            for (Object item : items) {
                write(g, item);
            }
            g.writeEndArray();
        } else if (plain == null) {
            g.writeNull();
        } else if (plain instanceof String text) {
            g.writeString(text);
        } else if (plain instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (plain instanceof Double d) {
            g.writeNumber(d);
        } else if (plain instanceof Float f) {
            g.writeNumber(f);
        } else if (plain instanceof BigDecimal d) {
            g.writeNumber(d);
        } else if (plain instanceof BigInteger i) {
            g.writeNumber(i);
        } else {
            g.writeNumber(((Number) plain).longValue());
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
