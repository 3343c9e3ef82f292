package dev.vsm.plugin.lvm;

import static java.util.Objects.requireNonNull;

import dev.vsm.lvm.LvmProperties;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.ZeroOut;

/**
 * The settings of one lvm storage section, with pve's defaults applied.
 *
 * @param vgname     the volume group
 * @param saferemove zero a volume's data when it is freed
 * @param stepMiB    the zero-out step in MiB ({@code saferemove-stepsize}, default 32)
 * @param throughput cstream's {@code -t} for devices that cannot write zeroes
 *                   ({@code saferemove_throughput}), or null for the engine's default
 * @param taggedOnly list only LVs tagged {@code pve-vm-<vmid>}
 * @param shrinkSnapshotLvs {@code shrink-snapshot-lvs} (vsm's): a chain's frozen layers shrink to their images' end
 */
record LvmOptions(
        String vgname,
        boolean saferemove,
        int stepMiB,
        String throughput,
        boolean taggedOnly,
        boolean shrinkSnapshotLvs) {
    LvmOptions {
        requireNonNull(vgname, "vgname");
    }

    static LvmOptions of(StorageConfig config) {
        String vg = LvmProperties.vgname(config);
        String throughput = config.string(LvmPlugin.SAFEREMOVE_THROUGHPUT)
                .filter(t -> !t.isEmpty())
                .orElse(null);
        return new LvmOptions(
                vg,
                config.bool(LvmPlugin.SAFEREMOVE, false),
                config.integer(LvmPlugin.SAFEREMOVE_STEPSIZE)
                        .map(Long::intValue)
                        .orElse(ZeroOut.DEFAULT_STEP_MIB),
                throughput,
                config.bool(LvmPlugin.TAGGED_ONLY, false),
                config.bool(LvmPlugin.SHRINK_SNAPSHOT_LVS, false));
    }
}
