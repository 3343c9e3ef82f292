package dev.vsm.lvm;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@code lvchange} activates or deactivates for a volume (pve's
 * {@code get_activate_volume_target_opts}): a raw volume is its LV path; a qcow2 volume is its
 * whole volume chain, selected by name so that snapshot LVs come along (fix #7143: not by tag,
 * which also matched other storages' LVs).
 *
 * @param args        the lvchange arguments naming the target
 * @param description how errors name it ({@code LV '<path>'}, {@code volume chain for LV '<path>'})
 */
public record ActivationTarget(List<String> args, String description) {
    public ActivationTarget {
        args = List.copyOf(args);
        requireNonNull(description, "description");
    }

    /** One LV, by path. */
    public static ActivationTarget lv(Path path) {
        return new ActivationTarget(List.of(path.toString()), "LV '" + path + "'");
    }

    /**
     * A qcow2 volume and its snapshot LVs: {@code --select 'vg_name = "<vg>" && lv_name =~ '^(<name>|snap_<name>_.+)\.qcow2$''}
     * with the dots of the name escaped.
     *
     * @param name the volume's LV name, with or without its {@code .qcow2}
     * @param path the volume's path, for messages
     */
    public static ActivationTarget volumeChain(String vg, String name, Path path) {
        String base = name.endsWith(".qcow2") ? name.substring(0, name.length() - ".qcow2".length()) : name;
        String re = base.replace(".", "\\.");
        String filter = "vg_name = \"" + vg + "\" && lv_name =~ '^(" + re + "|snap_" + re + "_.+)\\.qcow2$'";
        return new ActivationTarget(List.of("--select", filter), "volume chain for LV '" + path + "'");
    }
}
