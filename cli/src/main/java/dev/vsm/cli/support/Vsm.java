package dev.vsm.cli.support;

import java.io.PrintStream;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The top-level {@code vsm} command: global options, and one class per subcommand ({@link Subcommands}). */
@Command(
        name = "vsm",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description =
                "Volume storage manager: allocate, list, resize, clone and free VM disk volumes (a pvesm-like CLI).",
        footer = {"", "Exit status: 0 success, 2 bad input (nothing changed), 1 the operation failed."})
public final class Vsm {
    @Option(
            names = "--config",
            scope = ScopeType.INHERIT,
            paramLabel = "FILE",
            description =
                    "configuration file (default: $VSM_CONFIG, else /etc/vsm/storage.yaml, else a built-in default)")
    Path config;

    @Option(
            names = "--plugin-dir",
            scope = ScopeType.INHERIT,
            paramLabel = "DIR",
            description =
                    "directory of drop-in plugin jars (default: $VSM_PLUGIN_DIR, else plugin-dir in the config, else /usr/share/vsm/plugins)")
    Path pluginDir;

    @Option(
            names = {"-v", "--verbose"},
            scope = ScopeType.INHERIT,
            description = "debug logging and stack traces")
    boolean verbose;

    private final PrintStream out;
    private final PrintStream err;

    public Vsm(PrintStream out, PrintStream err) {
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
