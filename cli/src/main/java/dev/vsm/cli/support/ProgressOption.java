package dev.vsm.cli.support;

import picocli.CommandLine.Option;

/** The {@code --quiet} mixin of commands that show progress. */
public final class ProgressOption {
    @Option(
            names = {"-q", "--quiet"},
            description = "show no progress")
    boolean quiet;

    public boolean quiet() {
        return quiet;
    }
}
