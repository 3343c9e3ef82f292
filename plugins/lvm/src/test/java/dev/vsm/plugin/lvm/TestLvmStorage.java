package dev.vsm.plugin.lvm;

import dev.vsm.engine.DefaultStorageContext;
import dev.vsm.engine.FileStorageLocks;
import dev.vsm.env.Environment;
import dev.vsm.lock.FileLocks;
import dev.vsm.spi.Command;
import dev.vsm.spi.CommandRunner;
import dev.vsm.spi.Console;
import dev.vsm.spi.HostFiles;
import dev.vsm.spi.QemuImg;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageContext;
import dev.vsm.spi.StorageLocks;
import dev.vsm.spi.ZeroOut;
import dev.vsm.testing.LoopVolumeGroup;
import dev.vsm.testing.RecordingConsole;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An lvm storage {@code san} on a test volume group, opened on the framework's real context
 * (real lvm2, real zero-out engine, real file locks in a temp dir). Every command the plugin runs
 * is recorded too.
 */
final class TestLvmStorage {
    final RecordingConsole console = new RecordingConsole();
    final List<List<String>> commands = new ArrayList<>();
    final StorageContext context;
    final LvmStorage storage;

    private TestLvmStorage(
            LoopVolumeGroup vg, Path lockDir, Map<String, Object> properties, boolean dryRun, ZeroOut zeroOut) {
        StorageLocks locks = lockDir == null
                ? StorageLocks.NONE
                : new FileStorageLocks(new FileLocks(lockDir, new PrintStream(PrintStream.nullOutputStream())));
        DefaultStorageContext real = DefaultStorageContext.builder(console)
                .dryRun(dryRun)
                .locks(locks)
                .environment(Environment.system().with(vg.environment()))
                .build();
        this.context = new Recording(real, commands, zeroOut == null ? real.zeroOut() : zeroOut);
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("vgname", vg.name());
        props.putAll(properties);
        this.storage = new LvmStorage(new StorageConfig("san", "lvm", props), context);
    }

    static TestLvmStorage on(LoopVolumeGroup vg, Path lockDir, Map<String, Object> properties) {
        return new TestLvmStorage(vg, lockDir, properties, false, null);
    }

    static TestLvmStorage dryRun(LoopVolumeGroup vg, Map<String, Object> properties) {
        return new TestLvmStorage(vg, null, properties, true, null);
    }

    /** With another zero-out engine (to make the wipe fail). */
    static TestLvmStorage withZeroOut(
            LoopVolumeGroup vg, Path lockDir, Map<String, Object> properties, ZeroOut zeroOut) {
        return new TestLvmStorage(vg, lockDir, properties, false, zeroOut);
    }

    /** The recorded argv lists whose program is {@code program} (e.g. {@code /sbin/lvcreate}). */
    List<List<String>> ran(String program) {
        synchronized (commands) {
            return commands.stream().filter(c -> c.get(0).equals(program)).toList();
        }
    }

    /** The real context, recording the argv of every command and optionally with another zero-out engine. */
    private record Recording(StorageContext real, List<List<String>> log, ZeroOut zeroOut) implements StorageContext {
        @Override
        public CommandRunner commands() {
            CommandRunner runner = real.commands();
            return new CommandRunner() {
                @Override
                public Result query(Command command) {
                    record(command);
                    return runner.query(command);
                }

                @Override
                public Result run(Command command) {
                    record(command);
                    return runner.run(command);
                }
            };
        }

        private void record(Command command) {
            synchronized (log) {
                log.add(command.argv());
            }
        }

        @Override
        public HostFiles files() {
            return real.files();
        }

        @Override
        public QemuImg qemuImg() {
            return real.qemuImg();
        }

        @Override
        public Console console() {
            return real.console();
        }

        @Override
        public StorageLocks locks() {
            return real.locks();
        }

        @Override
        public boolean dryRun() {
            return real.dryRun();
        }

        @Override
        public String nodeName() {
            return real.nodeName();
        }
    }
}
