package dev.vsm.spi;

import static java.util.Objects.requireNonNull;

import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What a storage type accepts: its properties, content types and image formats (pve's
 * {@code properties}/{@code options} and {@code plugindata}).
 *
 * <p>Made with {@link #builder()}, so that it can gain fields without breaking plugins built
 * against an older SPI.
 */
public final class PluginSchema {
    private final List<PropertySpec> properties;
    private final Set<ContentType> content;
    private final Set<ContentType> defaultContent;
    private final List<VolumeFormat> formats;
    private final VolumeFormat defaultFormat;

    private PluginSchema(Builder b) {
        this.properties = List.copyOf(b.properties);
        this.content = Set.copyOf(b.content.isEmpty() ? EnumSet.noneOf(ContentType.class) : EnumSet.copyOf(b.content));
        this.defaultContent = Set.copyOf(b.defaultContent);
        this.formats = List.copyOf(b.formats);
        this.defaultFormat = requireNonNull(b.defaultFormat, "defaultFormat");
        for (ContentType c : defaultContent) {
            if (!content.contains(c)) {
                throw new IllegalArgumentException("default content '" + c + "' is not a valid content type");
            }
        }
    }

    /**
     * A builder; without its setters a schema has no properties and no content. Its formats
     * ({@link Builder#formats}) must be set.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Every property a section of this type may hold, common ones included. */
    public List<PropertySpec> properties() {
        return properties;
    }

    /** The content types this type can hold. */
    public Set<ContentType> content() {
        return content;
    }

    /** The content used when a section has no {@code content}. */
    public Set<ContentType> defaultContent() {
        return defaultContent;
    }

    /** The image formats this type can hold (empty: none). */
    public List<VolumeFormat> formats() {
        return formats;
    }

    /** The format used when none is asked for. */
    public VolumeFormat defaultFormat() {
        return defaultFormat;
    }

    public Optional<PropertySpec> property(String name) {
        return properties.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PluginSchema that
                && properties.equals(that.properties)
                && content.equals(that.content)
                && defaultContent.equals(that.defaultContent)
                && formats.equals(that.formats)
                && defaultFormat == that.defaultFormat;
    }

    @Override
    public int hashCode() {
        return Objects.hash(properties, content, defaultContent, formats, defaultFormat);
    }

    @Override
    public String toString() {
        return "PluginSchema[properties=" + properties + ", content=" + content + ", defaultContent=" + defaultContent
                + ", formats=" + formats + ", defaultFormat=" + defaultFormat + "]";
    }

    /** Builds a {@link PluginSchema}. */
    public static final class Builder {
        private List<PropertySpec> properties = List.of();
        private Set<ContentType> content = Set.of();
        private Set<ContentType> defaultContent = Set.of();
        private List<VolumeFormat> formats = List.of();
        private VolumeFormat defaultFormat;

        private Builder() {}

        /** Every property a section of this type may hold, common ones included. */
        public Builder properties(List<PropertySpec> specs) {
            this.properties = requireNonNull(specs, "properties");
            return this;
        }

        /** The content types this type can hold, and those a section without {@code content} gets. */
        public Builder content(Set<ContentType> types, Set<ContentType> defaults) {
            this.content = requireNonNull(types, "content");
            this.defaultContent = requireNonNull(defaults, "defaultContent");
            return this;
        }

        /** The image formats this type can hold, and the one used when none is asked for. */
        public Builder formats(List<VolumeFormat> formats, VolumeFormat defaultFormat) {
            this.formats = requireNonNull(formats, "formats");
            this.defaultFormat = requireNonNull(defaultFormat, "defaultFormat");
            return this;
        }

        public PluginSchema build() {
            return new PluginSchema(this);
        }
    }
}
