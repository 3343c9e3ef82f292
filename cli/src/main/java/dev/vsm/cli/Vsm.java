package dev.vsm.cli;

import dev.vsm.cli.command.AddCommand;
import dev.vsm.cli.command.AllocCommand;
import dev.vsm.cli.command.ApiInfoCommand;
import dev.vsm.cli.command.CleanupCommand;
import dev.vsm.cli.command.CloneCommand;
import dev.vsm.cli.command.CopyCommand;
import dev.vsm.cli.command.CreateBaseCommand;
import dev.vsm.cli.command.ExportCommand;
import dev.vsm.cli.command.FreeCommand;
import dev.vsm.cli.command.ImportCommand;
import dev.vsm.cli.command.ImportStreamCommand;
import dev.vsm.cli.command.InfoCommand;
import dev.vsm.cli.command.ListCommand;
import dev.vsm.cli.command.PathCommand;
import dev.vsm.cli.command.PluginsCommand;
import dev.vsm.cli.command.RemoveCommand;
import dev.vsm.cli.command.RenameCommand;
import dev.vsm.cli.command.ResizeCommand;
import dev.vsm.cli.command.RollbackCommand;
import dev.vsm.cli.command.ScanCommand;
import dev.vsm.cli.command.SetCommand;
import dev.vsm.cli.command.SnapshotCommand;
import dev.vsm.cli.command.SnapshotDeleteCommand;
import dev.vsm.cli.command.StatusCommand;
import dev.vsm.cli.command.VolidCommand;
import dev.vsm.cli.command.WipeCommand;
import java.io.PrintStream;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The top-level {@code vsm} command: global options, and one class per subcommand. */
@Command(name = "vsm", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Volume storage manager: allocate, list, resize, clone and free VM disk volumes (a pvesm-like CLI).",
        subcommands = {
            StatusCommand.class, ListCommand.class, AllocCommand.class, FreeCommand.class, PathCommand.class,
            VolidCommand.class, InfoCommand.class, ResizeCommand.class, CreateBaseCommand.class, CloneCommand.class, RenameCommand.class,
            AddCommand.class, SetCommand.class, RemoveCommand.class, ApiInfoCommand.class, PluginsCommand.class,
            ScanCommand.class, CleanupCommand.class, WipeCommand.class,
            SnapshotCommand.class, SnapshotDeleteCommand.class, RollbackCommand.class,
            ImportCommand.class, ExportCommand.class, ImportStreamCommand.class, CopyCommand.class,
        },
        footer = {"", "Exit status: 0 success, 2 bad input (nothing changed), 1 the operation failed."})
public final class Vsm {
    @Option(names = "--config", scope = ScopeType.INHERIT, paramLabel = "FILE",
            description = "configuration file (default: $VSM_CONFIG, else /etc/vsm/storage.yaml; a built-in default when none exists)")
    Path config;

    @Option(names = "--plugin-dir", scope = ScopeType.INHERIT, paramLabel = "DIR",
            description = "directory of drop-in plugin jars (default: $VSM_PLUGIN_DIR, else plugin-dir in the config, else /usr/share/vsm/plugins)")
    Path pluginDir;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT, description = "debug logging and stack traces")
    boolean verbose;

    private final PrintStream out;
    private final PrintStream err;

    Vsm(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public boolean verbose() {
        return verbose;
    }

    public Path configOption() {
        return config;
    }

    public Path pluginDirOption() {
        return pluginDir;
    }

    public PrintStream out() {
        return out;
    }

    public PrintStream err() {
        return err;
    }
}
