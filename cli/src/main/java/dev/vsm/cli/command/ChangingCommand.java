package dev.vsm.cli.command;

import dev.vsm.cli.support.DryRunOption;
import picocli.CommandLine.Mixin;

/** A command that changes something, and so takes {@code --dry-run}. */
abstract class ChangingCommand extends VsmCommand {
    @Mixin
    DryRunOption dryRunOption;

    @Override
    final boolean dryRun() {
        return dryRunOption.enabled();
    }

    @Override
    final boolean changes() {
        return true;
    }
}
