package dev.vsm.zeroout;

import static java.util.Objects.requireNonNull;

import dev.vsm.exec.OutputListener;
import dev.vsm.exec.ProcessCommandRunner;
import dev.vsm.progress.ProgressMeter;
import dev.vsm.progress.ProgressOutput;
import dev.vsm.spi.Command;
import dev.vsm.spi.Console;
import dev.vsm.spi.InterruptedCommandException;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.ZeroOut;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The framework's {@link ZeroOut}: resolves the device, plans the tool ({@link ZeroOutPlan}),
 * runs it through the command runner (so {@code --dry-run} prints it) and shows progress.
 *
 * <p>Progress comes from two sources, the furthest counting: the tool's own lines (blkdiscard
 * prints one a second but only when its buffered stdout fills or it exits; cstream prints to
 * stderr every 10 s), and the device's write counter in sysfs, polled by a {@link WriteCounter}
 * so that the display moves while the tool is silent (the bar on a terminal, the line per tenth
 * off one).
 */
public final class ZeroOutEngine implements ZeroOut {
    private final ProcessCommandRunner commands;
    private final Console console;
    private final ProgressOutput progress;
    private final Sysfs sysfs;
    private final boolean dryRun;

    public ZeroOutEngine(
            ProcessCommandRunner commands, Console console, ProgressOutput progress, Sysfs sysfs, boolean dryRun) {
        this.commands = requireNonNull(commands, "commands");
        this.console = requireNonNull(console, "console");
        this.progress = requireNonNull(progress, "progress");
        this.sysfs = requireNonNull(sysfs, "sysfs");
        this.dryRun = dryRun;
    }

    @Override
    public void zero(Path device, int stepMiB, String throughput) {
        requireNonNull(device, "device");
        if (dryRun && !Files.exists(device, LinkOption.NOFOLLOW_LINKS)) {
            // the activation that would create the node was not run either: plan for a device that writes zeroes
            console.info("'" + device + "' is not there yet (dry run): planned with the full step; "
                    + "the device's write_zeroes_max_bytes may reduce it, or select cstream if 0");
            print(ZeroOutPlan.of(device.toString(), Long.MAX_VALUE, stepMiB, throughput));
            return;
        }
        BlockDevice target = BlockDevice.resolve(device, sysfs);
        ZeroOutPlan plan = isThin(target)
                ? ZeroOutPlan.discard(device.toString(), sysfs.discardMaxBytes(target.queue()), stepMiB)
                : ZeroOutPlan.of(device.toString(), sysfs.writeZeroesMaxBytes(target.queue()), stepMiB, throughput);
        plan.note().ifPresent(console::info);
        if (dryRun) {
            print(plan);
        } else {
            run(target, plan);
        }
    }

    /**
     * True for an LVM thin volume, or any device-mapper device made of {@code thin} targets only:
     * its table ({@code dmsetup table}, read also under dry-run) says so.
     */
    private boolean isThin(BlockDevice device) {
        Optional<String> dmName = sysfs.deviceMapperName(device.name());
        if (dmName.isEmpty()) {
            return false;
        }
        List<String> targets = commands.query(Command.of(List.of("dmsetup", "table", dmName.get())))
                .stdout()
                .lines()
                .map(l -> l.strip().split("\\s+"))
                .filter(f -> f.length > 2)
                .map(f -> f[2])
                .toList();
        return !targets.isEmpty() && targets.stream().allMatch("thin"::equals);
    }

    /** Under dry-run the runner prints the command as {@code + argv} and runs nothing. */
    private void print(ZeroOutPlan plan) {
        commands.stream(Command.of(plan.argv()), (channel, line) -> {});
    }

    private void run(BlockDevice device, ZeroOutPlan plan) {
        long size = sysfs.sizeBytes(device.name()).orElse(0L);
        ProgressMeter meter = ProgressMeter.start("zero-out " + device.given(), size, progress);
        AtomicBoolean reachedEnd = new AtomicBoolean();
        OutputListener listener = (channel, line) -> {
            ToolOutput.bytesDone(plan.tool(), line).ifPresent(meter::advanceTo);
            if (ToolOutput.isEndOfDevice(plan.tool(), line)) {
                reachedEnd.set(true);
            }
        };
        try (WriteCounter written = WriteCounter.open(sysfs, device.name())) {
            written.feed(meter);
            try {
                commands.stream(Command.of(plan.argv()), listener);
            } catch (InterruptedCommandException e) {
                meter.advanceTo(written.bytesSinceOpen());
                meter.abandon();
                throw new InterruptedCommandException(String.format(
                        "zero-out of '%s' interrupted after %s: %s was "
                                + "stopped and the device is left partly zeroed for a later run to finish",
                        device.given(), meter.doneOfTotal(), plan.argv().get(0)));
            } catch (StorageException e) {
                if (!reachedEnd.get()) {
                    meter.abandon();
                    throw e;
                }
                // cstream writes until the device is full: "No space left on device" is its normal end
            }
            meter.advanceTo(written.bytesSinceOpen());
        }
        meter.finish();
    }
}
