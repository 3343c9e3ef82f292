package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a storage type accepts: its properties, content types and image formats (pve's
 * {@code properties}/{@code options} and {@code plugindata}).
 *
 * @param properties     every property a section of this type may hold, common ones included
 * @param content        the content types this type can hold
 * @param defaultContent the content used when a section has no {@code content}
 * @param formats        the image formats this type can hold (empty: none)
 * @param defaultFormat  the format used when none is asked for
 */
public record PluginSchema(List<PropertySpec> properties, Set<ContentType> content, Set<ContentType> defaultContent,
                           List<String> formats, String defaultFormat) {
    public PluginSchema {
        properties = List.copyOf(properties);
        content = Set.copyOf(content.isEmpty() ? EnumSet.noneOf(ContentType.class) : EnumSet.copyOf(content));
        defaultContent = Set.copyOf(defaultContent);
        formats = List.copyOf(formats);
        requireNonNull(defaultFormat, "defaultFormat");
        for (ContentType c : defaultContent) {
            if (!content.contains(c)) {
                throw new IllegalArgumentException("default content '" + c + "' is not a valid content type");
            }
        }
    }

    public Optional<PropertySpec> property(String name) {
        return properties.stream().filter(p -> p.name().equals(name)).findFirst();
    }
}
