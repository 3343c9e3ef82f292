package dev.vsm.cli.support;

import picocli.CommandLine.Option;

/** The {@code --dry-run} mixin of every changing command. */
public final class DryRunOption {
    @Option(
            names = "--dry-run",
            description = "print each change and each external command ('+ ' lines) and change nothing")
    boolean dryRun;

    public boolean enabled() {
        return dryRun;
    }
}
