package dev.vsm.files;

import static java.util.Objects.requireNonNull;

import dev.vsm.spi.CommandRunner;
import dev.vsm.spi.Console;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageLocks;
import dev.vsm.spi.ZeroOut;
import java.nio.file.Path;

/**
 * A plugin's context for one file storage: the same context, whose {@link #files()} reach every
 * path below the storage's directory by descriptor ({@link HostFiles#within}). The file-storage
 * library wraps the context it is given once, so that each of its changes inside a storage goes
 * the same way, whichever class makes it.
 */
public final class WithinStorage implements StorageContext {
    private final StorageContext context;
    private final Path base;
    private final HostFiles files;

    private WithinStorage(StorageContext context, Path base) {
        this.context = context;
        this.base = base;
        this.files = context.files().within(base);
    }

    /** {@code context}, its files within {@code base}; a context already within {@code base} is returned as it is. */
    public static StorageContext of(StorageContext context, Path base) {
        requireNonNull(context, "context");
        Path normal = requireNonNull(base, "base").toAbsolutePath().normalize();
        if (context instanceof WithinStorage w && w.base.equals(normal)) {
            return w;
        }
        return new WithinStorage(context instanceof WithinStorage w ? w.context : context, normal);
    }

    @Override
    public HostFiles files() {
        return files;
    }

    @Override
    public CommandRunner commands() {
        return context.commands();
    }

    @Override
    public QemuImg qemuImg() {
        return context.qemuImg();
    }

    @Override
    public ZeroOut zeroOut() {
        return context.zeroOut();
    }

    @Override
    public Console console() {
        return context.console();
    }

    @Override
    public StorageLocks locks() {
        return context.locks();
    }

    @Override
    public boolean dryRun() {
        return context.dryRun();
    }

    @Override
    public String nodeName() {
        return context.nodeName();
    }
}
