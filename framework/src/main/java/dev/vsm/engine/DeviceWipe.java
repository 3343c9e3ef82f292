package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.spi.ZeroOut;
import dev.vsm.zeroout.BlockDevice;
import dev.vsm.zeroout.DeviceSignatures;
import dev.vsm.zeroout.DeviceUse;
import dev.vsm.zeroout.Sysfs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Zeroing a whole block device ({@code vsm wipe --device}), with the refusals that keep it from
 * corrupting a running system or a storage vsm serves. Every caller (the command line, a program
 * embedding vsm) goes through them; they are checked in this order, before anything is written:
 *
 * <ol>
 *   <li>a path that is not a block device;
 *   <li>a device that is mounted, used as swap or held (device-mapper, md), itself or through one
 *       of its partitions ({@code force} does not override it);
 *   <li>a physical volume of a configured storage, as its plugin tells
 *       ({@code StoragePlugin.devices}: an lvm or lvmthin storage's volume group; {@code force}
 *       does not override it);
 *   <li>unless {@code force}, a device that holds anything: partitions, a partition table, a file
 *       system, an LVM physical volume or any other signature {@code wipefs --no-act} finds;
 *   <li>an unconfirmed wipe (the command line's {@code --yes}), except under dry-run, which
 *       changes nothing.
 * </ol>
 */
public final class DeviceWipe {
    private final StorageManager manager;
    private final Sysfs sysfs;

    public DeviceWipe(StorageManager manager, Sysfs sysfs) {
        this.manager = requireNonNull(manager, "manager");
        this.sysfs = requireNonNull(sysfs, "sysfs");
    }

    /**
     * Zeroes {@code device} after the checks above.
     *
     * @param force     zero a device that holds a signature (never one in use or a storage's)
     * @param confirmed the caller means it (the command line's {@code --yes})
     * @param stepMiB   blkdiscard's step, or null for {@link ZeroOut#DEFAULT_STEP_MIB}
     * @param throughput cstream's {@code -t} for the fallback, or null for its default
     * @return the device's kernel name
     */
    public String wipe(Path device, boolean force, boolean confirmed, Integer stepMiB, String throughput) {
        BlockDevice target = BlockDevice.resolve(device, sysfs);
        DeviceUse.ofThisHost(sysfs).why(target).ifPresent(why -> {
            throw StorageException.badInput(
                    "%s; not zeroing it (--force does not override this: it would corrupt a running system)", why);
        });
        backedStorage(device, target).ifPresent(why -> {
            throw StorageException.badInput("%s; not zeroing it (--force does not override this)", why);
        });
        if (!force) {
            new DeviceSignatures(manager.context().commands(), sysfs)
                    .held(target)
                    .ifPresent(held -> {
                        throw StorageException.badInput(
                                "'%s' is not empty: it holds %s - not zeroing it; add --force to zero it anyway",
                                device, held);
                    });
        }
        if (!confirmed && !manager.context().dryRun()) {
            throw StorageException.badInput(
                    "refusing to zero '%s' without --yes: every byte on it will be lost", device);
        }
        manager.context().zeroOut().zero(device, stepMiB != null ? stepMiB : ZeroOut.DEFAULT_STEP_MIB, throughput);
        return target.name();
    }

    /**
     * The configured storage whose data lives on the device (or one of its partitions), said in
     * one phrase with the way out; empty when none.
     */
    private Optional<String> backedStorage(Path device, BlockDevice target) {
        Set<String> names = new HashSet<>(sysfs.partitions(target.name()));
        names.add(target.name());
        for (StorageConfig config : manager.storages().values()) {
            Optional<StoragePlugin> plugin = manager.plugin(config.type());
            if (plugin.isEmpty()) {
                continue;
            }
            for (Map.Entry<Path, String> used :
                    plugin.get().devices(config, manager.context()).entrySet()) {
                if (names.contains(kernelName(used.getKey()))) {
                    return Optional.of(String.format(
                            "'%s' is %s, which storage '%s' uses - remove the storage first (vsm remove %s)",
                            device, used.getValue(), config.id(), config.id()));
                }
            }
        }
        return Optional.empty();
    }

    private static String kernelName(Path node) {
        try {
            node = node.toRealPath();
        } catch (IOException e) {
            // a PV that lvm2 names but that is gone: compare the name as written
        }
        return node.getFileName() == null ? node.toString() : node.getFileName().toString();
    }
}
