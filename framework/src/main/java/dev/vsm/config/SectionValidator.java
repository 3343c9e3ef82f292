package dev.vsm.config;

import dev.vsm.spi.PluginSchema;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.VolumeId;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Checks one storage section against its type's {@link PluginSchema}: every key must be a
 * property of the type ({@code unexpected property '<k>'}), every value must fit its
 * {@link PropertySpec} ({@link PropertyValues}), every required property must be there
 * ({@code missing value for required option '<k>'}). The result is the typed
 * {@link StorageConfig}; what is wrong is added to a list of {@link ConfigProblem}s, all of them,
 * so that one run names every mistake.
 *
 * <p>An empty list (other than {@code content}, where empty means {@code none}) is the same as
 * no value and is left out.
 */
final class SectionValidator {
    /** The key holding a section's type; it is not a property of the schema. */
    static final String TYPE = "type";

    private SectionValidator() {}

    /**
     * @param file        the file the section came from, or null for values of an edit
     * @param sectionLine the line of the section's id, for problems of the whole section
     * @param where       the storage id as named in problems; null for values of an edit, which
     *                    are named by their key only (as pve names command-line parameters)
     * @return the typed section, or empty when a problem was found
     */
    static Optional<StorageConfig> validate(
            String file,
            int sectionLine,
            String where,
            String id,
            String type,
            PluginSchema schema,
            List<RawProperty> properties,
            List<ConfigProblem> problems) {
        int before = problems.size();
        Map<String, Object> values = new LinkedHashMap<>();
        Set<String> refused = new HashSet<>();
        for (RawProperty p : properties) {
            Optional<PropertySpec> spec = schema.property(p.key());
            if (spec.isEmpty() || p.key().equals(TYPE)) {
                problems.add(new ConfigProblem(
                        file, p.line(), where, null, "unexpected property '" + VolumeId.printable(p.key()) + "'"));
                continue;
            }
            try {
                Object value = PropertyValues.convert(spec.get(), p.value(), schema);
                if (!(value instanceof List<?> l && l.isEmpty())) {
                    values.put(p.key(), value);
                }
            } catch (PropertyValues.BadValue e) {
                refused.add(p.key());
                problems.add(
                        new ConfigProblem(file, e.line() > 0 ? e.line() : p.line(), where, p.key(), e.getMessage()));
            }
        }
        for (PropertySpec spec : schema.properties()) {
            if (spec.required() && !values.containsKey(spec.name()) && !refused.contains(spec.name())) {
                problems.add(new ConfigProblem(
                        file, sectionLine, where, null, "missing value for required option '" + spec.name() + "'"));
            }
        }
        return problems.size() == before ? Optional.of(new StorageConfig(id, type, values)) : Optional.empty();
    }

    /** The raw form of a typed section's properties, to check it again after an edit. */
    static List<RawProperty> raw(StorageConfig config) {
        return config.properties().entrySet().stream()
                .map(e -> new RawProperty(e.getKey(), 0, RawValue.of(e.getValue())))
                .toList();
    }
}
