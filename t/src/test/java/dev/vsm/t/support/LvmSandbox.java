package dev.vsm.t.support;

import dev.vsm.testing.LoopVolumeGroup;
import java.nio.file.Path;

/** A vsm sandbox whose lvm2 sees a test volume group, configured as lvm storage {@code san}. */
public final class LvmSandbox {
    private LvmSandbox() {}

    /**
     * vsm with the group's {@code LVM_SYSTEM_DIR} and a config holding storage {@code san} on it.
     *
     * @param properties extra YAML lines for the {@code san} section, e.g. {@code "saferemove: true"}
     */
    public static Vsm vsm(Path sandbox, LoopVolumeGroup vg, String... properties) {
        Vsm vsm = new Vsm(sandbox).env(vg.environment());
        StringBuilder yaml = new StringBuilder("""
                storages:
                  san:
                    type: lvm
                    vgname: %s
                """.formatted(vg.name()));
        for (String p : properties) {
            yaml.append("    ").append(p).append('\n');
        }
        return vsm.writeConfig(yaml.toString());
    }
}
