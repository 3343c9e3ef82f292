package dev.vsm.plugin.lvm;

import static java.util.Objects.requireNonNull;

import dev.vsm.lvm.LogicalVolume;
import dev.vsm.lvm.Lvm;
import dev.vsm.lvm.LvsReport;
import dev.vsm.spi.InterruptedCommandException;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * saferemove (pve's {@code free_lvm_volumes_locked} with {@code saferemove} in LVMPlugin.pm):
 * with the storage lock held a volume is only renamed {@code del-<name>}, which is fast and keeps
 * its disk number taken; the slow part runs after the lock is released: activate, zero the data,
 * and {@code lvremove} under the lock again.
 *
 * <p>A {@code del-} LV left by a crash or Ctrl-C is found and finished later ({@code vsm free} on
 * the storage, {@code vsm cleanup <storage>}). Each {@code del-} LV is claimed (a host-wide lock
 * named after its UUID) while it is worked on, so two vsm processes never wipe the same one.
 *
 * <p>Nothing is ever written through a path that is not a block device (pve bug #6941): on a
 * host where the activated LV got no device node (no device-mapper) the zeroing is skipped with a
 * warning and the LV removed, as pve does. When zeroing fails the {@code del-} LV stays for a
 * later run.
 */
final class SafeRemoval {
    private final String storageId;
    private final LvmOptions options;
    private final StorageContext context;
    private final Lvm lvm;

    SafeRemoval(String storageId, LvmOptions options, StorageContext context, Lvm lvm) {
        this.storageId = requireNonNull(storageId, "storageId");
        this.options = requireNonNull(options, "options");
        this.context = requireNonNull(context, "context");
        this.lvm = requireNonNull(lvm, "lvm");
    }

    static String deleteName(String name) {
        return LvmVolumeNames.DELETE_PREFIX + name;
    }

    /**
     * The {@code del-} LVs of the storage's VG that hold one of its volumes or a snapshot of one
     * ({@code del-snap_vm-<vmid>-..._<snapshot>.qcow2}, a volume chain's layer) or an overlay in the
     * making ({@code del-vsm-partial-<name>}), in report order.
     */
    List<LogicalVolume> pending(LvsReport lvs) {
        return lvs.inGroup(options.vgname()).stream()
                .filter(lv -> lv.name().startsWith(LvmVolumeNames.DELETE_PREFIX)
                        && isRemovable(lv.name().substring(LvmVolumeNames.DELETE_PREFIX.length())))
                .toList();
    }

    private static boolean isRemovable(String name) {
        if (name.startsWith(LvChainLayers.PARTIAL)) { // an overlay a killed chain operation was making
            name = name.substring(LvChainLayers.PARTIAL.length());
        }
        return LvmVolumeNames.isVolumeName(name) || LvmVolumeNames.isSnapshotLayerName(name);
    }

    /** Under the storage lock: renames a volume's LV to {@code del-<name>}, if it is still the LV listed (by UUID). */
    void rename(LogicalVolume lv) {
        lvm.lvrenameForRemoval(lv, deleteName(lv.name()), context.dryRun());
    }

    /**
     * The task that zeroes and removes {@code del-} LVs, in order; to be run without the storage
     * lock. It fails, after trying every LV, when one could not be finished.
     *
     * @param volumes the LVs, as listed (names with or without the {@code del-} prefix)
     */
    Runnable finish(List<LogicalVolume> volumes) {
        List<LogicalVolume> work = List.copyOf(volumes);
        return () -> {
            List<String> failures = new ArrayList<>();
            for (LogicalVolume lv : work) {
                String delName = lv.name().startsWith(LvmVolumeNames.DELETE_PREFIX) ? lv.name() : deleteName(lv.name());
                try {
                    boolean claimed =
                            context.locks().tryExclusive(claimName(lv, delName), () -> finishOne(lv.withName(delName)));
                    if (!claimed) {
                        context.console()
                                .info("volume " + options.vgname() + "/" + delName
                                        + " is being removed by another vsm process - leaving it to that one");
                    }
                } catch (InterruptedCommandException e) {
                    throw e;
                } catch (StorageException e) {
                    failures.add(e.getMessage());
                }
            }
            if (!failures.isEmpty()) {
                throw StorageException.failed(
                        "%s%s",
                        failures.get(0),
                        failures.size() > 1 ? " (and " + (failures.size() - 1) + " more pending removals failed)" : "");
            }
        };
    }

    /** The host-wide claim on one LV: its UUID, which a rename keeps (its names if lvs did not report one). */
    private String claimName(LogicalVolume lv, String delName) {
        String name = lv.uuid().isEmpty() ? "lvm-" + options.vgname() + "-" + delName : "lvm-lv-" + lv.uuid();
        return name.length() > 100 ? name.substring(0, 100) : name;
    }

    /** Zeroes and removes one {@code del-} LV, the one listed (by UUID): a {@code del-} LV of that name made since is left. */
    private void finishOne(LogicalVolume lv) {
        String vg = options.vgname();
        String delName = lv.name();
        String name = delName.substring(LvmVolumeNames.DELETE_PREFIX.length());
        if (!context.dryRun()
                && !lvm.lvs(vg)
                        .find(vg, delName)
                        .map(found -> found.uuid().equals(lv.uuid()))
                        .orElse(false)) {
            return; // finished by another process between our listing and our claim
        }
        Path path = Path.of("/dev", vg, delName);
        context.console().info("zero-out data on image " + name + " (" + path + ")");
        try {
            lvm.activateForZeroing(path);
            zero(path);
        } catch (InterruptedCommandException e) {
            throw new InterruptedCommandException(String.format(
                    "storage '%s': zero-out of %s/%s stopped, the volume stays "
                            + "until it is done (run 'vsm cleanup %s') - %s",
                    storageId, vg, delName, storageId, e.getMessage()));
        } catch (StorageException e) {
            throw StorageException.failed(
                    e,
                    "storage '%s': zero-out of %s/%s failed, the volume stays until it is done "
                            + "(run 'vsm cleanup %s') - %s",
                    storageId,
                    vg,
                    delName,
                    storageId,
                    e.getMessage());
        }
        context.locks().withStorageLock(storageId, () -> {
            lvm.lvremove(lv, context.dryRun());
            return null;
        });
        if (!context.dryRun()) {
            context.console().info("successfully removed volume " + name + " (" + vg + "/" + delName + ")");
        }
    }

    /** Zeroes the device, unless its node is not a block device (under dry-run the activation did not run: go on). */
    private void zero(Path path) {
        if (!context.dryRun() && !BlockDevices.isBlockDevice(path)) {
            context.console()
                    .warn("skip zero-out for volume '" + path + "' - it is not a block device"
                            + " (the activated LV has no device node: no device-mapper on this host?)");
            return;
        }
        context.zeroOut().zero(path, options.stepMiB(), options.throughput());
    }
}
