package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.env.Environment;
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
import dev.vsm.trust.LvmEnvironment;
import dev.vsm.zeroout.Sysfs;
import dev.vsm.zeroout.ZeroOutEngine;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real {@link StorageContext}: processes through commons-exec, local files, the installed
 * qemu-img, the zero-out engine on the real block devices (sysfs at {@code $VSM_SYSFS}, else
 * {@code /sys}) and the host's storage locks. As root, the lvm2 variables of its environment that
 * name a place must be root's alone ({@link LvmEnvironment}). Made with {@link #builder}.
 */
public final class DefaultStorageContext implements StorageContext {
    private final boolean dryRun;
    private final Console console;
    private final Environment environment;
    private final ProcessCommandRunner commands;
    private final LocalHostFiles files;
    private QemuImgRunner qemuImg;
    private final ZeroOutEngine zeroOut;
    private final ProgressOutput progress;
    private final StorageLocks locks;
    private String nodeName;

    private DefaultStorageContext(Builder b) {
        this.dryRun = b.dryRun;
        this.console = b.console;
        this.environment = b.environment;
        this.locks = b.locks;
        this.progress = b.progress != null ? b.progress : ProgressOutput.lines(console);
        this.nodeName = b.nodeName;
        LvmEnvironment.requireTrusted(environment); // every command run inherits it, lvm2's too
        this.commands = new ProcessCommandRunner(dryRun, console, environment, locks::checkHeld);
        this.files = new LocalHostFiles(dryRun, console, locks::checkHeld, this::nodeName);
        this.zeroOut = new ZeroOutEngine(commands, console, progress, Sysfs.fromEnvironment(environment), dryRun);
    }

    /**
     * A context that writes to {@code console}; by default it changes things (no dry-run), takes
     * no storage locks ({@link StorageLocks#NONE}: for tests and single-process use), prints the
     * progress of long jobs as one summary line each and runs in this process's environment.
     */
    public static Builder builder(Console console) {
        return new Builder(console);
    }

    /** How a {@link DefaultStorageContext} is made: {@link DefaultStorageContext#builder}. */
    public static final class Builder {
        private final Console console;
        private boolean dryRun;
        private ProgressOutput progress;
        private StorageLocks locks = StorageLocks.NONE;
        private Environment environment = Environment.system();
        private String nodeName;

        private Builder(Console console) {
            this.console = requireNonNull(console, "console");
        }

        /** Under dry-run changing commands are printed ({@code + argv}), not run. */
        public Builder dryRun(boolean dryRun) {
            this.dryRun = dryRun;
            return this;
        }

        /**
         * Where long jobs show their progress: {@link ProgressOutput#terminal} redraws a line while
         * they run, {@link ProgressOutput#lines} (the default) prints a summary at the end.
         */
        public Builder progress(ProgressOutput progress) {
            this.progress = requireNonNull(progress, "progress");
            return this;
        }

        /** The storage locks plugins take after the engine released its own, and the engine's own. */
        public Builder locks(StorageLocks locks) {
            this.locks = requireNonNull(locks, "locks");
            return this;
        }

        /**
         * The environment: vsm's settings ({@code VSM_QEMU_IMG}, {@code VSM_SYSFS}, {@code VSM_NODE},
         * ...) and the variables of every command run (tests point {@code LVM_SYSTEM_DIR} at their
         * own lvm.conf with {@code Environment.system().with(...)}).
         */
        public Builder environment(Environment environment) {
            this.environment = requireNonNull(environment, "environment");
            return this;
        }

        /** This node's name (cluster mode's {@code cluster.node}); unset or null: {@code $VSM_NODE}, else the short host name. */
        public Builder nodeName(String nodeName) {
            this.nodeName = nodeName;
            return this;
        }

        public DefaultStorageContext build() {
            return new DefaultStorageContext(this);
        }
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
            qemuImg = new QemuImgRunner(commands, console, progress, QemuImgRunner.Settings.from(environment));
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
            String env = environment.get("VSM_NODE");
            if (env != null && !env.isBlank()) {
                nodeName = env;
            } else {
                nodeName = hostName(KERNEL_HOSTNAME).split("\\.", 2)[0];
            }
        }
        return nodeName;
    }

    /** Where Linux gives {@code uname -n}, the name pve calls the node by. */
    static final Path KERNEL_HOSTNAME = Path.of("/proc/sys/kernel/hostname");

    /**
     * The host's name as {@code uname -n} gives it (pve's {@code nodename}), read from {@code file}.
     * Not {@code InetAddress.getLocalHost()}: it looks the name up (a DNS query when the hosts
     * file lacks it: seconds on a host whose resolver is down, 10 ms on a good one) only to
     * return the name it started from, and calls the node {@code localhost} when the lookup fails.
     */
    static String hostName(Path file) {
        try {
            String name = Files.readString(file, StandardCharsets.US_ASCII).strip();
            if (!name.isEmpty()) {
                return name;
            }
        } catch (IOException e) {
            // not Linux, or no procfs: the JDK's way
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
