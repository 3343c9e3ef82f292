package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;

/**
 * One drop-in plugin found in a {@link PluginDirectory}: a jar directly in the directory, or a
 * sub-directory whose jars (the plugin and its libraries) form the plugin's class path.
 *
 * @param location  the jar or the sub-directory, as named in messages and by {@code vsm plugins}
 * @param classPath the jars, in name order (empty for a sub-directory without jars)
 */
public record PluginBundle(Path location, List<Path> classPath) {
    public PluginBundle {
        requireNonNull(location, "location");
        classPath = List.copyOf(classPath);
    }
}
