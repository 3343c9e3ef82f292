package dev.vsm.spi;

import java.util.Locale;
import java.util.Optional;

/** What a storage may hold (pve's content types). */
public enum ContentType {
    IMAGES("images", "images"),
    ROOTDIR("rootdir", "private"),
    VZTMPL("vztmpl", "template/cache"),
    ISO("iso", "template/iso"),
    BACKUP("backup", "dump"),
    SNIPPETS("snippets", "snippets"),
    IMPORT("import", "import"),
    NONE("none", null);

    private final String id;
    private final String defaultSubdir;

    ContentType(String id, String defaultSubdir) {
        this.id = id;
        this.defaultSubdir = defaultSubdir;
    }

    /** The name used in configuration, volume ids and output, e.g. {@code images}. */
    public String id() {
        return id;
    }

    /** The sub-directory a path-based storage keeps this content in, relative to its path. */
    public Optional<String> defaultSubdir() {
        return Optional.ofNullable(defaultSubdir);
    }

    public static Optional<ContentType> fromId(String id) {
        for (ContentType t : values()) {
            if (t.id.equals(id.toLowerCase(Locale.ROOT))) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return id;
    }
}
