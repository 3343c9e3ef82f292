package dev.vsm.transfer;

import dev.vsm.spi.StorageException;
import java.util.List;

/**
 * A stream's bandwidth limit in KiB/s ({@code --bwlimit}), enforced as pve does it: the data
 * passes through {@code cstream -t <bytes per second>}.
 *
 * @param kibPerSecond the limit, at least 1
 */
public record BandwidthLimit(long kibPerSecond) {
    public BandwidthLimit {
        if (kibPerSecond < 1) {
            throw StorageException.badInput("bwlimit: %d KiB/s is not a bandwidth (use at least 1)", kibPerSecond);
        }
        if (kibPerSecond > Long.MAX_VALUE / 1024) {
            throw StorageException.badInput("bwlimit: %d KiB/s is too large", kibPerSecond);
        }
    }

    /** {@code cstream -t <bytes/s>}: reads its standard input, writes it to its standard output at most that fast. */
    public List<String> cstream() {
        return List.of("cstream", "-t", Long.toString(kibPerSecond * 1024));
    }
}
