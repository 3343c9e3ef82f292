package dev.vsm.engine;

import static java.util.Objects.requireNonNull;

import dev.vsm.exec.ProcessCommandRunner;
import dev.vsm.qemu.QemuImgRunner;
import dev.vsm.spi.CommandRunner;
import dev.vsm.spi.Console;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.StorageContext;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** The real {@link StorageContext}: processes through commons-exec, local files, the installed qemu-img. */
public final class DefaultStorageContext implements StorageContext {
    private final boolean dryRun;
    private final Console console;
    private final ProcessCommandRunner commands;
    private final LocalHostFiles files;
    private final QemuImgRunner qemuImg;
    private String nodeName;

    public DefaultStorageContext(boolean dryRun, Console console) {
        this.dryRun = dryRun;
        this.console = requireNonNull(console, "console");
        this.commands = new ProcessCommandRunner(dryRun, console);
        this.files = new LocalHostFiles(dryRun, console);
        this.qemuImg = new QemuImgRunner(commands, console);
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
        return qemuImg;
    }

    /** The concrete qemu-img runner, for the engine's own use (per-command preallocation). */
    public QemuImgRunner qemuImgRunner() {
        return qemuImg;
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
