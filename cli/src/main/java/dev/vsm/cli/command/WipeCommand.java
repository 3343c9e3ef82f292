package dev.vsm.cli.command;

import dev.vsm.cli.support.ProgressOption;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import dev.vsm.spi.ZeroOut;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vsm wipe --device <path> --yes}: zero a whole block device with the framework's
 * zero-out engine (blkdiscard --zeroout, or cstream where the device cannot write zeroes).
 *
 * <p>Refused, with one line on stderr and exit status 2, before anything runs: what
 * {@link dev.vsm.zeroout.DeviceWipe} refuses for every caller (a device in use, a configured
 * storage's physical volume, a device with a signature unless {@code --force}), and, as for a
 * volume, a wipe without {@code --yes} (except with {@code --dry-run}, which changes nothing).
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
        session().manager().wipe(volid, yes, stepMiB, throughput);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("volid", volid.toString());
        result.put("dry-run", dryRun());
        output.print(out(), result, o -> {});
    }

    private void wipeDevice() {
        String kernelName = session().deviceWipe().wipe(device, force, yes, stepMiB, throughput);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("device", device.toString());
        result.put("kernel-name", kernelName);
        result.put("dry-run", dryRun());
        output.print(out(), result, o -> {});
    }
}
