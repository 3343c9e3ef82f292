package dev.vsm.cli.command;

import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.StorageException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Storage properties given as {@code --<name> <value>} (or {@code --<name>=<value>}) to
 * {@code add} and {@code set}, as pvesm takes them. Property names come from the plugin's schema,
 * which is known only once the type is, so they are parsed here rather than declared to picocli.
 * A boolean property given without a value means {@code 1}.
 */
final class PropertyArgs {
    private PropertyArgs() {}

    /**
     * A property name as Getopt::Long (pvesm's parser) takes it: the property of that name in any
     * case, else the one property of the type that starts with it; more than one is bad input.
     */
    static String spelled(String name, PluginSchema schema) {
        if (schema.property(name).isPresent()) {
            return name;
        }
        String lower = name.toLowerCase(Locale.ROOT);
        List<String> names =
                schema.properties().stream().map(PropertySpec::name).sorted().toList();
        for (String n : names) {
            if (n.toLowerCase(Locale.ROOT).equals(lower)) {
                return n;
            }
        }
        List<String> matches = names.stream()
                .filter(n -> !lower.isEmpty() && n.toLowerCase(Locale.ROOT).startsWith(lower))
                .toList();
        if (matches.size() > 1) {
            throw StorageException.badInput("Option %s is ambiguous (%s)", name, String.join(", ", matches));
        }
        return matches.isEmpty() ? name : matches.get(0);
    }

    static Map<String, String> parse(List<String> args, PluginSchema schema, String type) {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--") || arg.length() == 2) {
                throw StorageException.badInput("unexpected argument '%s'", arg);
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            name = spelled(name, schema);
            String key = name;
            PropertySpec spec = schema.property(key)
                    .orElseThrow(() -> StorageException.badInput("unexpected property '%s' for type '%s'", key, type));
            if (value == null) {
                boolean hasNext = i + 1 < args.size() && !args.get(i + 1).startsWith("--");
                if (hasNext) {
                    value = args.get(++i);
                } else if (spec.type() == PropertySpec.PropertyType.BOOLEAN) {
                    value = "1";
                } else {
                    throw StorageException.badInput("property '%s' needs a value", name);
                }
            }
            if (values.put(name, value) != null) {
                throw StorageException.badInput("property '%s' given twice", name);
            }
        }
        return values;
    }
}
