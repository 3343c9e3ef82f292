package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.exec.ProcessCommandRunner;
import dev.vsm.progress.ProgressOutput;
import dev.vsm.qemu.QemuImgRunner;
import dev.vsm.spi.CommandRunner;
import dev.vsm.spi.Console;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageLocks;
import dev.vsm.spi.ZeroOut;
import dev.vsm.zeroout.Sysfs;
import dev.vsm.zeroout.ZeroOutEngine;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;

/**
 * The real {@link StorageContext}: processes through commons-exec, local files, the installed
 * qemu-img, the zero-out engine on the real block devices (sysfs at {@code $VSM_SYSFS}, else
 * {@code /sys}) and the host's storage locks.
 */
public final class DefaultStorageContext implements StorageContext {
    private final boolean dryRun;
    private final Console console;
    private final ProcessCommandRunner commands;
    private final LocalHostFiles files;
    private QemuImgRunner qemuImg;
    private final ZeroOutEngine zeroOut;
    private final ProgressOutput progress;
    private final StorageLocks locks;
    private String nodeName;

    /** A context without storage locks whose long jobs (zero-out) print one summary line each: for tests and single-process use. */
    public DefaultStorageContext(boolean dryRun, Console console) {
        this(dryRun, console, ProgressOutput.lines(console), StorageLocks.NONE, Map.of());
    }

    /** A context without storage locks, with the given progress output. */
    public DefaultStorageContext(boolean dryRun, Console console, ProgressOutput progress) {
        this(dryRun, console, progress, StorageLocks.NONE, Map.of());
    }

    /** A context with storage locks and extra command environment, printing progress as summary lines. */
    public DefaultStorageContext(boolean dryRun, Console console, StorageLocks locks, Map<String, String> environment) {
        this(dryRun, console, ProgressOutput.lines(console), locks, environment);
    }

    /**
     * @param progress    where long jobs show their progress: {@link ProgressOutput#terminal} redraws a
     *                    line while they run, {@link ProgressOutput#lines} prints a summary at the end
     * @param locks       the storage locks plugins take after the engine released its own
     * @param environment variables set for every command run, over vsm's own environment (tests
     *                    point {@code LVM_SYSTEM_DIR} at their own lvm.conf this way)
     */
    public DefaultStorageContext(boolean dryRun, Console console, ProgressOutput progress, StorageLocks locks,
                                 Map<String, String> environment) {
        this(dryRun, console, progress, locks, environment, null);
    }

    /**
     * @param nodeName this node's name (cluster mode's {@code cluster.node}); null for
     *                 {@code $VSM_NODE}, else the short host name
     */
    public DefaultStorageContext(boolean dryRun, Console console, ProgressOutput progress, StorageLocks locks,
                                 Map<String, String> environment, String nodeName) {
        this.nodeName = nodeName;
        this.dryRun = dryRun;
        this.console = requireNonNull(console, "console");
        this.locks = requireNonNull(locks, "locks");
        this.commands = new ProcessCommandRunner(dryRun, console, environment, locks::checkHeld);
        this.files = new LocalHostFiles(dryRun, console, locks::checkHeld);
        this.progress = requireNonNull(progress, "progress");
        this.zeroOut = new ZeroOutEngine(commands, console, progress, Sysfs.fromEnvironment(), dryRun);
    }

    @Override
    public CommandRunner commands() {
        return commands;
    }

    @Override
    public HostFiles files() {
        return files;
    }

    @Override
    public QemuImg qemuImg() {
        return qemuImgRunner();
    }

    /**
     * The concrete qemu-img runner, for the engine's own use (per-command preallocation). Made on
     * first use: its JSON reader costs about 0.1 s of start-up that commands without qemu-img
     * (wipe, LVM) need not pay.
     */
    public synchronized QemuImgRunner qemuImgRunner() {
        if (qemuImg == null) {
            qemuImg = new QemuImgRunner(commands, console, progress);
        }
        return qemuImg;
    }

    /** Where long jobs (zero-out, convert, streams) show their progress. */
    public ProgressOutput progress() {
        return progress;
    }

    @Override
    public ZeroOut zeroOut() {
        return zeroOut;
    }

    @Override
    public StorageLocks locks() {
        return locks;
    }

    @Override
    public Console console() {
        return console;
    }

    @Override
    public boolean dryRun() {
        return dryRun;
    }

    @Override
    public synchronized String nodeName() {
        if (nodeName == null) {
            String env = System.getenv("VSM_NODE");
            if (env != null && !env.isBlank()) {
                nodeName = env;
            } else {
                try {
                    nodeName = InetAddress.getLocalHost().getHostName().split("\\.", 2)[0];
                } catch (UnknownHostException e) {
                    nodeName = "localhost";
                }
            }
        }
        return nodeName;
    }
}
