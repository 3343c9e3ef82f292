package dev.vsm.config;

import dev.vsm.spi.ContentType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The configuration vsm runs on when its file does not exist: one {@code dir} storage
 * {@code local} holding every content type. It is YAML text read like a file, so it is checked
 * against the {@code dir} plugin's schema like any configuration (and kept as a section of a type
 * not loaded when there is no {@code dir} plugin).
 */
final class BuiltInDefault {
    static final String LOCAL = "local";
    /** How the default is named in messages. */
    static final String LABEL = "<built-in default>";

    private BuiltInDefault() {}

    static String yaml(Path localDir) {
        List<String> content = new ArrayList<>();
        for (ContentType c : ContentType.values()) {
            if (c != ContentType.NONE) {
                content.add(c.id());
            }
        }
        return ConfigParser.STORAGES + ":\n"
                + "  " + LOCAL + ":\n"
                + "    type: dir\n"
                + "    path: " + ConfigWriter.scalar(localDir.toString()) + "\n"
                + "    content: [" + String.join(", ", content) + "]\n";
    }
}
