package dev.vsm.cli.command;

import dev.vsm.cli.support.ProgressOption;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.StoragePlugin;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.ZeroOut;
import dev.vsm.zeroout.BlockDevice;
import dev.vsm.zeroout.DeviceSignatures;
import dev.vsm.zeroout.DeviceUse;
import dev.vsm.zeroout.Sysfs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm wipe --device <path> --yes}: zero a whole block device with the framework's
 * zero-out engine (blkdiscard --zeroout, or cstream where the device cannot write zeroes).
 *
 * <p>Refused, with one line on stderr and exit status 2, before anything runs: no {@code --yes}
 * (except with {@code --dry-run}, which changes nothing), a path that is not a block device, a
 * device that is mounted, used as swap or held (device-mapper, md), itself or through one of its
 * partitions, or that is a physical volume of a configured lvm or lvmthin storage's volume group
 * ({@code --force} overrides none of these: zeroing it would corrupt a running system or a
 * storage vsm serves); and, unless {@code --force}, a device that holds anything: partitions, a
 * partition table, a file system, an LVM physical volume or any other signature
 * {@code wipefs --no-act} finds.
 *
 * <p>{@code vsm wipe <volid> --yes} zeroes a storage volume in place (the storage's plugin
 * activates it and zeroes it with its own step and throughput unless given).
 */
@Command(
        name = "wipe",
        description = {
            "Zero a volume (VOLUME) or a whole block device (--device) with blkdiscard --zeroout "
                    + "(cstream where the device cannot write zeroes). Every byte on it is lost.",
            "Ctrl-C stops it; the device is then partly zeroed and a later run finishes it."
        })
public final class WipeCommand extends ChangingCommand {
    /** The storage types whose {@code vgname} names a volume group on block devices. */
    @Parameters(index = "0", arity = "0..1", paramLabel = "VOLUME", description = "a volume id, e.g. san:vm-100-disk-0")
    String volume;

    @Option(names = "--device", paramLabel = "PATH", description = "the block device, e.g. /dev/sdb or /dev/vg/lv")
    Path device;

    @Option(names = "--yes", description = "really zero it (required, except with --dry-run)")
    boolean yes;

    @Option(
            names = "--force",
            description = "zero a device that holds a file system, partitions or another signature "
                    + "(never one that is mounted, held or a configured storage's)")
    boolean force;

    @Option(
            names = "--stepsize",
            paramLabel = "MiB",
            description = "blkdiscard step in MiB, reduced to what the device takes " + "(default: the storage's, else "
                    + ZeroOut.DEFAULT_STEP_MIB + ")")
    Integer stepMiB;

    @Option(
            names = "--throughput",
            paramLabel = "T",
            description = "cstream's -t for the fallback: bytes/s, k/m/g suffix, "
                    + "negative for a limit per write (default: " + ZeroOut.DEFAULT_THROUGHPUT + ")")
    String throughput;

    @Mixin
    ProgressOption progress;

    @Override
    void execute() {
        if ((volume == null) == (device == null)) {
            throw StorageException.badInput("give either a VOLUME or --device PATH to zero");
        }
        if (volume != null) {
            wipeVolume(VolumeId.parse(volume));
        } else {
            wipeDevice();
        }
    }

    private void wipeVolume(VolumeId volid) {
        if (!yes && !dryRun()) {
            throw StorageException.badInput(
                    "refusing to zero '%s' without --yes: every byte on it will be lost", volid);
        }
        session().manager().wipe(volid, stepMiB, throughput);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("volid", volid.toString());
        result.put("dry-run", dryRun());
        output.print(out(), result, o -> {});
    }

    private void wipeDevice() {
        Sysfs sysfs = Sysfs.fromEnvironment(session().environment());
        BlockDevice target = BlockDevice.resolve(device, sysfs);
        DeviceUse.ofThisHost(sysfs).why(target).ifPresent(why -> {
            throw StorageException.badInput(
                    "%s; not zeroing it (--force does not override this: it would corrupt " + "a running system)", why);
        });
        backedStorage(target, sysfs).ifPresent(why -> {
            throw StorageException.badInput("%s; not zeroing it (--force does not override this)", why);
        });
        if (!force) {
            new DeviceSignatures(session().context().commands(), sysfs)
                    .held(target)
                    .ifPresent(held -> {
                        throw StorageException.badInput(
                                "'%s' is not empty: it holds %s - not zeroing it; add --force to zero it anyway",
                                device, held);
                    });
        }
        if (!yes && !dryRun()) {
            throw StorageException.badInput(
                    "refusing to zero '%s' without --yes: every byte on it will be lost", device);
        }
        session().context().zeroOut().zero(device, stepMiB != null ? stepMiB : ZeroOut.DEFAULT_STEP_MIB, throughput);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("device", device.toString());
        result.put("kernel-name", target.name());
        result.put("dry-run", dryRun());
        output.print(out(), result, o -> {});
    }

    /**
     * The configured storage whose data lives on the device (or one of its partitions), as its
     * plugin tells ({@code StoragePlugin.devices}: an lvm or lvmthin storage's physical
     * volumes), said in one phrase with the way out; empty when none.
     */
    private Optional<String> backedStorage(BlockDevice target, Sysfs sysfs) {
        Set<String> names = new HashSet<>(sysfs.partitions(target.name()));
        names.add(target.name());
        StorageContext context = session().context();
        for (StorageConfig config : session().config().storages().values()) {
            Optional<StoragePlugin> plugin = session().registry().plugin(config.type());
            if (plugin.isEmpty()) {
                continue;
            }
            for (Map.Entry<Path, String> used :
                    plugin.get().devices(config, context).entrySet()) {
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
