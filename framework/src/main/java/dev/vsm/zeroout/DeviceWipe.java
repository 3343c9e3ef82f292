package dev.vsm.zeroout;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.spi.ZeroOut;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

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
 *       ({@code StoragePlugin.devices}: an lvm or lvmthin storage's volume group), under its own
 *       name or another ({@link DeviceIdentity}: a second path to one LUN, a second loop device
 *       on one file); {@code force} does not override it;
 *   <li>unless {@code force}, a device that holds anything: partitions, a partition table, a file
 *       system, an LVM physical volume or any other signature {@code wipefs --no-act} finds;
 *   <li>an unconfirmed wipe (the command line's {@code --yes}), except under dry-run, which
 *       changes nothing.
 * </ol>
 */
public final class DeviceWipe {
    private final StorageContext context;
    private final List<StorageConfig> storages;
    private final Function<String, Optional<StoragePlugin>> plugins;
    private final Sysfs sysfs;

    /**
     * @param storages the configured storages, whose devices are refused
     * @param plugins  the loaded plugin of a storage type, which tells a storage's devices
     */
    public DeviceWipe(
            StorageContext context,
            Collection<StorageConfig> storages,
            Function<String, Optional<StoragePlugin>> plugins,
            Sysfs sysfs) {
        this.context = requireNonNull(context, "context");
        this.storages = List.copyOf(storages);
        this.plugins = requireNonNull(plugins, "plugins");
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
            new DeviceSignatures(context.commands(), sysfs).held(target).ifPresent(held -> {
                throw StorageException.badInput(
                        "'%s' is not empty: it holds %s - not zeroing it; add --force to zero it anyway", device, held);
            });
        }
        if (!confirmed && !context.dryRun()) {
            throw StorageException.badInput(
                    "refusing to zero '%s' without --yes: every byte on it will be lost", device);
        }
        context.zeroOut().zero(device, stepMiB != null ? stepMiB : ZeroOut.DEFAULT_STEP_MIB, throughput);
        return target.name();
    }

    /**
     * The configured storage whose data lives on the device (or one of its partitions), said in
     * one phrase with the way out; empty when none. A storage's device is found by its name, and
     * under another name by what {@link DeviceIdentity} marks it with (device number, a loop
     * device's backing file, an LVM physical volume's UUID).
     */
    private Optional<String> backedStorage(Path device, BlockDevice target) {
        DeviceIdentity identity = new DeviceIdentity(sysfs);
        Set<String> names = new HashSet<>(sysfs.partitions(target.name()));
        Map<String, String> marks = new HashMap<>();
        for (String partition : names) {
            marks.putAll(identity.marks(partition, Path.of("/dev").resolve(partition)));
        }
        names.add(target.name());
        marks.putAll(identity.marks(target.name(), target.node()));
        for (StorageConfig config : storages) {
            Optional<StoragePlugin> plugin = plugins.apply(config.type());
            if (plugin.isEmpty()) {
                continue;
            }
            for (Map.Entry<Path, String> used :
                    plugin.get().devices(config, context).entrySet()) {
                Optional<String> same = names.contains(kernelName(used.getKey()))
                        ? Optional.of("")
                        : sameAs(identity, used.getKey(), marks);
                if (same.isPresent()) {
                    return Optional.of(String.format(
                            "'%s' is %s%s, which storage '%s' uses - remove the storage first (vsm remove %s)",
                            device,
                            same.get().isEmpty() ? "" : "the same device as ",
                            used.getValue() + (same.get().isEmpty() ? "" : " (" + same.get() + ")"),
                            config.id(),
                            config.id()));
                }
            }
        }
        return Optional.empty();
    }

    /** How the storage's {@code node} is the target under another name (the words of the shared mark), if it is. */
    private Optional<String> sameAs(DeviceIdentity identity, Path node, Map<String, String> targetMarks) {
        BlockDevice used;
        try {
            used = BlockDevice.resolve(node, sysfs);
        } catch (StorageException e) {
            return Optional.empty(); // gone, or no block device: nothing to share with the target
        }
        Map<String, String> marks = identity.marks(used.name(), used.node());
        for (Map.Entry<String, String> mark : marks.entrySet()) {
            if (targetMarks.containsKey(mark.getKey())) {
                return Optional.of(mark.getValue());
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
