package dev.vsm.lvm;

import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the lvm and lvmthin plugins answer to {@code vsm scan} and {@code vsm wipe}'s in-use check. */
public final class LvmScans {
    private LvmScans() {}

    /**
     * pvesm scan lvm: the volume groups, sorted by name, with size and free bytes as pve's API gives
     * them. Takes no arguments.
     */
    public static List<Map<String, Object>> volumeGroups(List<String> args, StorageContext context) {
        if (!args.isEmpty()) {
            throw StorageException.badInput("scan lvm takes no arguments");
        }
        return lvm(context).vgs().groups().stream()
                .sorted(Comparator.comparing(VolumeGroup::name))
                .map(g -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("vg", g.name());
                    m.put("size", g.size());
                    m.put("free", g.free());
                    return m;
                })
                .toList();
    }

    /**
     * pvesm scan lvmthin: the thin pools of the volume group, the one argument, sorted by name, with
     * their sizes and use in bytes.
     */
    public static List<Map<String, Object>> thinPools(List<String> args, StorageContext context) {
        if (args.size() != 1) {
            throw StorageException.badInput("scan lvmthin takes one argument: the volume group");
        }
        String vg = args.get(0);
        LvmNames.check(vg);
        Lvm lvm = lvm(context);
        if (lvm.vgs().group(vg).isEmpty()) {
            throw StorageException.badInput("no such volume group '%s'", vg);
        }
        return lvm.lvs(vg).thinPools(vg).stream()
                .sorted(Comparator.comparing(LogicalVolume::name))
                .map(pool -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("lv", pool.name());
                    m.put("vg", pool.vg());
                    m.put("lv_size", pool.size());
                    m.put("used", pool.used());
                    m.put("metadata_size", pool.metadataSize());
                    m.put("metadata_used", pool.metadataUsed());
                    return m;
                })
                .toList();
    }

    /** The physical volumes of the section's volume group ({@link #physicalVolumes(String, StorageContext)}); none without one. */
    public static Map<Path, String> physicalVolumes(StorageConfig config, StorageContext context) {
        return config.string(LvmProperties.VGNAME)
                .map(vg -> physicalVolumes(vg, context))
                .orElse(Map.of());
    }

    /** The physical volumes of volume group {@code vg}, each as {@code physical volume <pv> of volume group '<vg>'}. */
    public static Map<Path, String> physicalVolumes(String vg, StorageContext context) {
        Map<Path, String> devices = new LinkedHashMap<>();
        for (VolumeGroup g : lvm(context).vgsWithPvs().groups()) {
            if (g.name().equals(vg)) {
                for (VolumeGroup.PhysicalVolume pv : g.pvs()) {
                    devices.put(
                            Path.of(pv.name()),
                            String.format("physical volume %s of volume group '%s'", pv.name(), vg));
                }
            }
        }
        return devices;
    }

    private static Lvm lvm(StorageContext context) {
        return new Lvm(context.commands(), context.console());
    }
}
