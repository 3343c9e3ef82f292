package dev.vsm.zeroout;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.Command;
import dev.vsm.spi.CommandRunner;
import dev.vsm.spi.Console;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.ZeroOut;
import java.nio.file.Files;
import java.nio.file.Path;

/** The framework's {@link ZeroOut}: resolves the device, plans the tool and runs it. */
public final class ZeroOutEngine implements ZeroOut {
    private static final String ENOSPC = "No space left on device";

    private final CommandRunner commands;
    private final Console console;
    private final Sysfs sysfs;
    private final boolean dryRun;

    public ZeroOutEngine(CommandRunner commands, Console console, Sysfs sysfs, boolean dryRun) {
        this.commands = requireNonNull(commands, "commands");
        this.console = requireNonNull(console, "console");
        this.sysfs = requireNonNull(sysfs, "sysfs");
        this.dryRun = dryRun;
    }

    @Override
    public void zero(Path device, int stepMiB, String throughput) {
        requireNonNull(device, "device");
        ZeroOutPlan plan = plan(device, stepMiB, throughput);
        plan.note().ifPresent(console::info);
        Command command = Command.of(plan.argv());
        if (plan.tool() == ZeroOutPlan.Tool.CSTREAM) {
            command = command.withErrorPrefix("zero out finished (note: '" + ENOSPC + "' is ok here)");
        }
        try {
            commands.run(command);
        } catch (StorageException e) {
            if (plan.tool() != ZeroOutPlan.Tool.CSTREAM || !e.getMessage().endsWith(ENOSPC)) {
                throw e;
            }
        }
    }

    /** The plan for a device: resolved and checked, or under dry-run a path that does not exist yet. */
    ZeroOutPlan plan(Path device, int stepMiB, String throughput) {
        if (dryRun && !Files.exists(device, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return ZeroOutPlan.of(device.toString(), 0, stepMiB, throughput);
        }
        BlockDevice dev = BlockDevice.resolve(device, sysfs);
        return ZeroOutPlan.of(device.toString(), sysfs.writeZeroesMaxBytes(dev.queue()), stepMiB, throughput);
    }
}
