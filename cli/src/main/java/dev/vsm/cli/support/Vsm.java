package dev.vsm.cli.support;

import dev.vsm.env.Environment;
import java.io.InputStream;
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

    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;
    private final Environment environment;

    /** A run on this process's standard input and environment. */
    public Vsm(PrintStream out, PrintStream err) {
        this(null, out, err, Environment.system());
    }

    /**
     * @param in          standard input ({@code import-stream ... -}); null: this process's
     * @param environment the environment the run takes its settings from and runs commands in
     */
    public Vsm(InputStream in, PrintStream out, PrintStream err, Environment environment) {
        this.in = in;
        this.out = out;
        this.err = err;
        this.environment = environment;
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

    /** The standard input given to this run, or null for this process's own. */
    public InputStream in() {
        return in;
    }

    public Environment environment() {
        return environment;
    }
}
