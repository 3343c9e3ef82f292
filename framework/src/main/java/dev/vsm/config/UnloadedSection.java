package dev.vsm.config;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.VolumeId;
import org.snakeyaml.engine.v2.nodes.MappingNode;

/**
 * A storage section whose type has no loaded plugin (a drop-in jar that is missing or failed to
 * load). vsm cannot check or use it, but keeps it: it is written back as it was when the file is
 * rewritten (pve drops such sections; losing a storage's configuration because a plugin failed
 * to load would be worse than a warning).
 */
public final class UnloadedSection {
    private final String id;
    private final String type;
    private final int line;
    private final MappingNode node;

    UnloadedSection(String id, String type, int line, MappingNode node) {
        this.id = requireNonNull(id, "id");
        this.type = requireNonNull(type, "type");
        this.line = line;
        this.node = requireNonNull(node, "node");
    }

    public String id() {
        return id;
    }

    public String type() {
        return type;
    }

    /** The line of the section's id in the file. */
    public int line() {
        return line;
    }

    /** The section as read; never modified. */
    MappingNode node() {
        return node;
    }

    /** The warning printed when the configuration is read. */
    String warning(String file) {
        return file + ":" + line + ": storage '" + id + "': type '" + VolumeId.printable(type)
                + "' is not loaded - section kept unchanged";
    }
}
