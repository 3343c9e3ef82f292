package dev.vsm.cli.command;

import dev.vsm.spi.StorageException;
import dev.vsm.transfer.BandwidthLimit;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** What {@code export} and {@code import-stream} share: pve's {@code --with-snapshots} and {@code --bwlimit}, and the file argument. */
final class StreamOptions {
    @Option(names = "--with-snapshots", paramLabel = "0|1",
            description = "whether the stream carries snapshots: raw+size needs 0, qcow2+size 1 (default: 0)")
    String withSnapshots = "0";

    @Option(names = "--bwlimit", paramLabel = "KiB/s", description = "at most this many KiB per second (through cstream)")
    Long bwlimit;

    boolean withSnapshots() {
        return switch (withSnapshots) {
            case "0" -> false;
            case "1" -> true;
            default -> throw StorageException.badInput("with-snapshots: '%s' is not 0 or 1", withSnapshots);
        };
    }

    BandwidthLimit limit() {
        return bwlimit == null ? null : new BandwidthLimit(bwlimit);
    }

    /** The file argument: null for {@code -} (standard input or output). */
    static Path file(String argument) {
        return argument.equals("-") ? null : Path.of(argument);
    }
}
