package dev.vsm.cli.command;

import dev.vsm.cli.support.BwlimitOption;
import dev.vsm.cli.support.Session;
import dev.vsm.spi.StorageException;
import dev.vsm.spi.VolumeId;
import dev.vsm.transfer.BandwidthLimit;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/**
 * What {@code export} and {@code import-stream} share: pve's {@code --with-snapshots},
 * {@code --snapshot} and {@code --base}, vsm's {@code --bwlimit}, and the file argument. Booleans
 * read as pve reads them: {@code 1|0|yes|no|on|off|true|false}, and the option alone means 1.
 */
final class StreamOptions {
    /** pvesm's pattern for a snapshot name in export and import (anchored, as pve anchors schema patterns). */
    private static final Pattern SNAPSHOT = Pattern.compile("[a-z0-9_\\-]{1,40}", Pattern.CASE_INSENSITIVE);

    @Option(
            names = "--with-snapshots",
            paramLabel = "0|1",
            arity = "0..1",
            fallbackValue = "1",
            description = "whether the stream carries snapshots: raw+size needs 0, qcow2+size 1 (default: 0)")
    String withSnapshots = "0";

    @Option(
            names = "--snapshot",
            paramLabel = "NAME",
            description =
                    "export: the snapshot to export (refused: dir, lvm and lvmthin export the current state only); "
                            + "import: the stream's current-state snapshot (accepted, not used, as in pve)")
    String snapshot;

    @Option(
            names = "--base",
            paramLabel = "NAME",
            description =
                    "the base snapshot of an incremental stream (refused: dir, lvm and lvmthin send and take whole volumes)")
    String base;

    @Option(names = "--bwlimit", paramLabel = "KiB/s", description = BwlimitOption.DESCRIPTION + " (through cstream)")
    Long bwlimit;

    boolean withSnapshots() {
        return bool("with-snapshots", withSnapshots);
    }

    String snapshot() {
        return snapshotName("snapshot", snapshot, SNAPSHOT, 40);
    }

    String base() {
        return snapshotName("base", base, SNAPSHOT, 40);
    }

    /**
     * The limit of a stream of {@code volid}: a {@code migration} in pve's terms, which its storage
     * migration streams through these commands.
     */
    BandwidthLimit limit(Session session, VolumeId volid) {
        return session.transfers().limit("migration", List.of(volid.storage()), bwlimit, session.mayChangeStorages());
    }

    /** pve's {@code parse_boolean}; a value it does not know is bad input. */
    static boolean bool(String option, String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "1", "yes", "on", "true" -> true;
            case "0", "no", "off", "false" -> false;
            default ->
                throw StorageException.badInput(
                        "%s: '%s' is not 0 or 1 (or yes/no, on/off, true/false)", option, value);
        };
    }

    /** A snapshot name as pvesm's schema takes it ({@code [a-z0-9_-]}, case-insensitive), or null. */
    static String snapshotName(String option, String value, Pattern pattern, int max) {
        if (value != null && !pattern.matcher(value).matches()) {
            throw StorageException.badInput(
                    "%s: '%s' is not a snapshot name (1 to %d of a-z, 0-9, _ and -)",
                    option, dev.vsm.spi.VolumeId.printable(value), max);
        }
        return value;
    }

    /** The file argument: null for {@code -} (standard input or output). */
    static Path file(String argument) {
        return argument.equals("-") ? null : Path.of(argument);
    }
}
