package dev.vsm.t.support;

import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.ThinMetadata;
import java.nio.file.Path;

/**
 * A vsm sandbox whose lvm2 sees a test volume group holding thin pools, configured as lvmthin
 * storage {@code thin} on pool {@code data}.
 */
public final class ThinSandbox {
    private ThinSandbox() {}

    /**
     * The standard thin layout, written into the group's metadata ({@link ThinMetadata}): a plain
     * LV {@code plain}; pool {@code data} (32 MiB) with {@code vm-100-disk-0} (16 MiB), its
     * snapshot {@code s1}, {@code vm-101-disk-0} (8 MiB), {@code base-102-disk-0} (8 MiB) and a
     * foreign {@code scratch} (4 MiB); pool {@code other} (8 MiB) with {@code vm-100-disk-1}.
     * The pool {@code data} holds 52 MiB of thin volumes.
     */
    public static void writeLayout(LoopVolumeGroup vg) {
        vg.createLv("plain", 4);
        ThinMetadata.of(vg)
                .pool("data", 32)
                .pool("other", 8)
                .volume("data", "vm-100-disk-0", 16)
                .snapshot("data", "snap_vm-100-disk-0_s1", "vm-100-disk-0", 16)
                .volume("data", "vm-101-disk-0", 8)
                .base("data", "base-102-disk-0", 8)
                .volume("data", "scratch", 4)
                .volume("other", "vm-100-disk-1", 4)
                .write();
    }

    /**
     * vsm with the group's {@code LVM_SYSTEM_DIR} and a config holding storage {@code thin}.
     *
     * @param properties extra YAML lines for the {@code thin} section, e.g. {@code "max-overprovision: 2"}
     */
    public static Vsm vsm(Path sandbox, LoopVolumeGroup vg, String... properties) {
        StringBuilder yaml = new StringBuilder("""
                storages:
                  thin:
                    type: lvmthin
                    vgname: %s
                    thinpool: data
                """.formatted(vg.name()));
        for (String p : properties) {
            yaml.append("    ").append(p).append('\n');
        }
        return new Vsm(sandbox).env(vg.environment()).writeConfig(yaml.toString());
    }
}
