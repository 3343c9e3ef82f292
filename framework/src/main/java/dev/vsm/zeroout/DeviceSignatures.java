package dev.vsm.zeroout;

import static java.util.Objects.requireNonNull;

import dev.vsm.json.JsonTree;
import dev.vsm.spi.Command;
import dev.vsm.spi.CommandRunner;
import dev.vsm.spi.StorageException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a block device holds, as util-linux's {@code wipefs --no-act --json} reports it (read
 * only): file systems, LVM physical volumes, RAID members, partition tables ({@code gpt},
 * {@code dos}) and other signatures, on the device or on one of its partitions. Partitions the
 * kernel knows of count too, whatever their signatures.
 */
final class DeviceSignatures {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final CommandRunner commands;
    private final Sysfs sysfs;

    public DeviceSignatures(CommandRunner commands, Sysfs sysfs) {
        this.commands = requireNonNull(commands, "commands");
        this.sysfs = requireNonNull(sysfs, "sysfs");
    }

    /**
     * What the device holds (such as {@code LVM2_member signature at offset 0x218 of loop1} or
     * {@code partitions loop1p1, loop1p2}, joined by {@code "; "}), or empty when it holds nothing known.
     *
     * @throws StorageException (bad input) when wipefs cannot tell: then nobody can say it is unused
     */
    public Optional<String> held(BlockDevice device) {
        List<String> found = new ArrayList<>();
        List<String> partitions = sysfs.partitions(device.name());
        if (!partitions.isEmpty()) {
            found.add("partition" + (partitions.size() > 1 ? "s " : " ") + String.join(", ", partitions));
        }
        found.addAll(signatures(device));
        return found.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", found));
    }

    private List<String> signatures(BlockDevice device) {
        CommandRunner.Result r;
        try {
            r = commands.query(
                    Command.of("wipefs", "--no-act", "--json", device.node().toString())
                            .withTimeout(TIMEOUT));
        } catch (StorageException e) {
            throw StorageException.badInput(
                    "cannot tell what '%s' holds (%s) - not zeroing it; add --force to zero it anyway",
                    device.given(), e.getMessage());
        }
        List<String> found = new ArrayList<>();
        if (r.stdout().isBlank()) {
            return found; // wipefs prints nothing at all for a device without signatures
        }
        try {
            for (JsonTree s : JsonTree.parse(r.stdout()).path("signatures").elements()) {
                found.add(String.format(
                        "%s signature at offset %s of %s",
                        s.path("type").text("?"),
                        s.path("offset").text("?"),
                        s.path("device").text(device.name())));
            }
        } catch (IOException e) {
            throw StorageException.badInput(
                    "cannot tell what '%s' holds (wipefs printed no JSON: %s) - not zeroing it; "
                            + "add --force to zero it anyway",
                    device.given(), e.getMessage());
        }
        return found;
    }
}
